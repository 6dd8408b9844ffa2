/**
 * A local storage has nothing to run: it "runs" while its directory is there. A remote one runs
 * its client (connections reused by every request) while the remote answers; it is checked the
 * same way (a listing of its root), and a remote that stops answering shows as the rule's error.
 * A local storage The engine checks that at
 * start (a missing directory is an error status, retried by the runtime with backoff, so a disk
 * mounted late comes back by itself) and, while running, looks again now and then so a disk that
 * went away shows as an error instead of a storage that silently serves nothing.
 */
import type { Storage } from '@lucky/contracts';
import { RuleProblem, type Engine, type RuleContext, type RuleHandle } from '../../core/engine.js';
import { msgOf } from '../../lib/msgerror.js';
import { openRemote, type RemoteClient } from './remote/index.js';
import { directoryProblem } from './storage.dir.js';
import type { StorageState } from './storage.state.js';

/** How often a running storage's directory is looked at again; a stat is all it costs. */
const RECHECK_MS = 60_000;

export class StorageEngine implements Engine<Storage> {
  constructor(private readonly state: StorageState) {}

  async start(rule: Storage, ctx: RuleContext<unknown>): Promise<RuleHandle<Storage, unknown>> {
    this.state.version++;
    if (rule.kind !== 'local') return this.startRemote(rule, ctx);
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
        if (next.kind !== 'local' || (await directoryProblem(next.path))) return false;
        path = next.path;
        ctx.report(null);
        return true;
      },
    };
  }

  private async startRemote(rule: Storage, ctx: RuleContext<unknown>): Promise<RuleHandle<Storage, unknown>> {
    let client: RemoteClient;
    try {
      client = await openRemote(rule);
    } catch (err) {
      throw new RuleProblem(msgOf(err));
    }
    try {
      await client.fs.list('/');
    } catch (err) {
      await client.close().catch(() => undefined);
      throw new RuleProblem(msgOf(err));
    }
    this.state.remotes.set(ctx.key, client);
    const timer = setInterval(() => {
      client.fs.stat('/').then(
        () => ctx.report(null),
        (err: unknown) => ctx.report([msgOf(err)]),
      );
    }, RECHECK_MS);
    timer.unref();
    return {
      stop: async () => {
        this.state.version++;
        clearInterval(timer);
        if (this.state.remotes.get(ctx.key) === client) this.state.remotes.delete(ctx.key);
        await client.close().catch(() => undefined);
      },
      // Another server, other credentials: a new client (the rule restarts).
      update: () => false,
    };
  }
}
