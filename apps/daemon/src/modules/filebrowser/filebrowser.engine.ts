/**
 * A share link "runs" while it may be used: its status turns to an error when it expires (the
 * public routes check the expiry on every request either way), and the storages it serves show the
 * file browser as their user, so deleting one asks first.
 */
import type { FbShare, FilebrowserConfigure } from '@lucky/contracts';
import { RuleProblem, type Engine, type RuleContext, type RuleHandle } from '../../core/engine.js';
import type { StoragesService } from '../../core/services/storages.js';

/** setTimeout's longest wait; a later expiry is checked again then. */
const MAX_WAIT = 2 ** 31 - 1;

export class ShareEngine implements Engine<FbShare, FilebrowserConfigure> {
  private readonly serving = new Map<string, string>();

  constructor(private readonly storages: StoragesService) {}

  private publish(): void {
    this.storages.setUsage('filebrowser', [...new Set(this.serving.values())]);
  }

  async start(rule: FbShare, ctx: RuleContext<FilebrowserConfigure>): Promise<RuleHandle<FbShare, never>> {
    if (rule.expires !== null && rule.expires <= Date.now()) throw new RuleProblem({ key: 'fbShareExpired' }, false);
    this.serving.set(ctx.key, rule.storage);
    this.publish();
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      if (rule.expires === null) return;
      const wait = rule.expires - Date.now();
      timer = setTimeout(() => {
        if (rule.expires !== null && rule.expires <= Date.now()) {
          ctx.report([{ key: 'fbShareExpired' }]);
          this.serving.delete(ctx.key);
          this.publish();
        } else arm();
      }, Math.max(0, Math.min(wait, MAX_WAIT)));
      timer.unref();
    };
    arm();
    return {
      stop: async () => {
        if (timer) clearTimeout(timer);
        this.serving.delete(ctx.key);
        this.publish();
      },
    };
  }
}
