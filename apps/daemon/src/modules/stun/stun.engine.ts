/** The STUN engine: starts one rule's run and keeps the runs for "recheck" and the module's figures. */
import type { StunConfigure, StunRule } from '@lucky/contracts';
import type { Engine, RuleContext, RuleHandle } from '../../core/engine.js';
import { StunRun, type RunDeps, type RunFigures } from './stun.run.js';

export class StunEngine implements Engine<StunRule, StunConfigure, RunFigures> {
  private runs = new Map<string, StunRun>();

  constructor(private readonly deps: RunDeps) {}

  private listeners = new Set<(key: string) => void>();

  async start(rule: StunRule, ctx: RuleContext<StunConfigure>): Promise<RuleHandle<StunRule, RunFigures>> {
    const run = new StunRun(rule, ctx, { ...this.deps, changed: () => this.listeners.forEach((l) => l(ctx.key)) });
    try {
      await run.start();
    } catch (err) {
      await run.stop();
      throw err;
    }
    this.runs.set(ctx.key, run);
    return {
      stop: async () => {
        if (this.runs.get(ctx.key) === run) this.runs.delete(ctx.key);
        await run.stop();
      },
      update: (r) => run.update(r),
      figures: () => run.figures(),
    };
  }

  run(key: string): StunRun | undefined {
    return this.runs.get(key);
  }

  /** Calls `listener` with a rule's key after a check that changed its public address or mappings. */
  onChanged(listener: (key: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  connections(): number {
    let n = 0;
    for (const r of this.runs.values()) n += r.traffic.connections + r.traffic.sessions;
    return n;
  }
}
