/**
 * A storage has nothing to run: it "runs" while its directory is there. The engine checks that at
 * start (a missing directory is an error status, retried by the runtime with backoff, so a disk
 * mounted late comes back by itself) and, while running, looks again now and then so a disk that
 * went away shows as an error instead of a storage that silently serves nothing.
 */
import type { Storage } from '@lucky/contracts';
import { RuleProblem, type Engine, type RuleContext, type RuleHandle } from '../../core/engine.js';
import { directoryProblem } from './storage.dir.js';
import type { StorageState } from './storage.state.js';

/** How often a running storage's directory is looked at again; a stat is all it costs. */
const RECHECK_MS = 60_000;

export class StorageEngine implements Engine<Storage> {
  constructor(private readonly state: StorageState) {}

  async start(rule: Storage, ctx: RuleContext<unknown>): Promise<RuleHandle<Storage, unknown>> {
    this.state.version++;
    const problem = await directoryProblem(rule.path);
    if (problem) throw new RuleProblem(problem);
    let path = rule.path;
    const timer = setInterval(() => {
      void directoryProblem(path).then((p) => ctx.report(p ? [p] : null));
    }, RECHECK_MS);
    timer.unref();
    return {
      stop: async () => {
        this.state.version++;
        clearInterval(timer);
      },
      // Another directory is checked the same way: take it in place when it is there.
      update: async (next) => {
        this.state.version++;
        if (await directoryProblem(next.path)) return false;
        path = next.path;
        ctx.report(null);
        return true;
      },
    };
  }
}
