/**
 * The life of every rule of one module, written once: starts and stops of a rule run one after the
 * other, its ports are claimed before its engine opens anything and released when it stops, a rule
 * that cannot start shows why and is retried with backoff, and its log says what happened. The
 * engine is imported when the first rule starts, so a module with no running rule costs no memory
 * for its engine code.
 */
import type { Msg } from '@lucky/contracts';
import { KeyedQueue, RuleProblem, RuleWaits, statusOf, type Engine, type EngineStatus, type RuleContext, type RuleHandle } from './engine.js';
import type { Say } from './logs.js';
import { moduleName, PortConflict, type Endpoint, type PortOwner, type PortRegistry } from './ports.js';
import type { RuleLog } from './rulelog.js';

/** Every rule has at least a name and a switch. */
export type RuleData = { name: string; enable: boolean };

/** Waits between attempts to start a rule that failed: 5 s doubling up to 5 min. */
export const RETRY = { firstMs: 5_000, maxMs: 300_000 };

interface Run<R, F> {
  key: string;
  rule: R;
  handle: RuleHandle<R, F> | null;
  status: EngineStatus;
  attempt: number;
  timer: NodeJS.Timeout | null;
  /** Bumped on every start and stop: a context of an older run reports nothing. */
  gen: number;
  /** While waiting (RuleWaits): stops listening for what it waits for. */
  unwait: (() => void) | null;
}

export interface RuleRuntimeOptions<R extends RuleData, S, F> {
  module: string;
  store: { get(key: string): { data: R } | undefined; list(): Array<{ key: string; data: R }> };
  settings: () => S;
  engine: () => Promise<Engine<R, S, F>>;
  /** The ports a rule listens on, known from the rule alone (claimed before the engine starts it). */
  listens?: (rule: R) => Endpoint[];
  ports: PortRegistry;
  say: Say;
  logs: RuleLog;
  retry?: typeof RETRY;
  /** A rule's status changed (started, error, waiting, stopped): read it with `status`. */
  changed?: (key: string) => void;
}

export class RuleRuntime<R extends RuleData, S, F> {
  private runs = new Map<string, Run<R, F>>();
  private queue = new KeyedQueue();
  private engine: Promise<Engine<R, S, F>> | null = null;
  /** The engine once its import finished, for what must answer at once (connection counts). */
  private loaded: Engine<R, S, F> | null = null;
  private active = false;
  /** The status each rule was last told to have (`changed`), so that only a new one is told. */
  private told = new Map<string, string>();

  constructor(private o: RuleRuntimeOptions<R, S, F>) {}

  owner(key: string, rule: R): PortOwner {
    return { module: this.o.module, key, name: rule.name };
  }

  /** Throws PortConflict when the rule, enabled, would listen where another owner does. */
  admit(key: string, rule: R): void {
    if (rule.enable && this.o.listens) this.o.ports.check(this.o.listens(rule), this.owner(key, rule));
  }

  /** The module was switched on: every enabled rule starts, in list order (the first one keeps a contested port). */
  async startAll(): Promise<number> {
    this.active = true;
    const keys = this.o.store
      .list()
      .filter((r) => r.data.enable)
      .map((r) => r.key);
    for (const key of keys) await this.apply(key);
    return keys.length;
  }

  /** The module was switched off or the daemon closes: every rule stops, then the engine lets go of what it shares. */
  async stopAll(): Promise<void> {
    this.active = false;
    await Promise.all([...this.runs.keys()].map((key) => this.apply(key)));
    const engine = this.engine;
    this.engine = null;
    this.loaded = null;
    if (engine) await (await engine.catch(() => null))?.close?.();
  }

  /** Brings the rule in line with what is stored: started, updated in place, restarted or stopped. */
  apply(key: string): Promise<void> {
    return this.queue.run(key, async () => {
      const stored = this.o.store.get(key);
      if (this.active && stored?.data.enable) await this.start(key, stored.data);
      else await this.stop(key);
      // Told once the start is over: not the "running" it shows while the engine is still opening.
      this.tell(key);
    });
  }

  /** Calls `changed` when the rule's state or reason is not the one last told; a rule never started is not told it stopped. */
  private tell(key: string): void {
    if (!this.o.changed) return;
    const was = this.told.get(key);
    const status = this.status(key);
    const now = `${status.state}\0${status.message}`;
    if (now === was || (was === undefined && !this.runs.has(key))) return;
    if (this.runs.has(key)) this.told.set(key, now);
    else this.told.delete(key);
    try {
      this.o.changed(key);
    } catch (err) {
      this.o.say.error({ key: 'statusApplyFailed', vars: { detail: (err as Error)?.message ?? String(err) } }, { rule: key, err });
    }
  }

  /** The engine, imported now if no rule has started it yet. */
  loadEngine(): Promise<Engine<R, S, F>> {
    this.engine ??= this.o.engine().then((e) => (this.loaded = e));
    return this.engine;
  }

  private async start(key: string, rule: R): Promise<void> {
    let run = this.runs.get(key);
    if (!run) {
      run = { key, rule, handle: null, status: statusOf('stopped', Date.now(), []), attempt: 0, timer: null, gen: 0, unwait: null };
      this.runs.set(key, run);
    }
    this.cancelRetry(run);
    run.rule = rule;
    try {
      if (this.o.listens) this.o.ports.claim(this.o.listens(rule), this.owner(key, rule));
    } catch (err) {
      // Another owner holds a port of this version: the rule as stored cannot run at all.
      await this.closeHandle(run);
      this.o.ports.release(this.owner(key, rule));
      this.failed(run, err);
      return;
    }
    try {
      if (run.handle?.update && (await run.handle.update(rule))) {
        this.note(key, { key: 'ruleApplied' });
        return;
      }
      await this.closeHandle(run);
      const engine = await this.loadEngine();
      const gen = ++run.gen;
      // Running from here unless the engine reports otherwise while it starts.
      run.status = statusOf('running', Date.now(), []);
      run.handle = await engine.start(rule, this.context(run, gen));
      run.attempt = 0;
      this.note(key, { key: 'ruleStarted' });
    } catch (err) {
      await this.closeHandle(run);
      this.failed(run, err);
    }
  }

  private context(run: Run<R, F>, gen: number): RuleContext<S> {
    const live = () => this.runs.get(run.key) === run && run.gen === gen;
    return {
      key: run.key,
      name: run.rule.name,
      note: (line) => {
        if (live()) this.note(run.key, line);
      },
      // Also while starting (before the run counts as live): a server sizes its log as it opens.
      logLines: (lines) => this.o.logs.resize(run.key, lines),
      report: (parts, as = 'error') => {
        if (!live()) return;
        const state = parts?.length ? as : 'running';
        if (run.status.state !== state || state !== 'running') run.status = statusOf(state, run.status.state === state ? run.status.since : Date.now(), parts ?? []);
        this.tell(run.key);
      },
      claim: (endpoint) => {
        const owner = this.owner(run.key, run.rule);
        this.o.ports.add(endpoint, owner);
        return () => this.o.ports.drop(endpoint, owner);
      },
      settings: this.o.settings,
      log: this.o.say,
    };
  }

  /** No timer and no waiting left: a start or a stop is under way. */
  private cancelRetry(run: Run<R, F>): void {
    if (run.timer) clearTimeout(run.timer);
    run.timer = null;
    run.unwait?.();
    run.unwait = null;
  }

  /** Not an error: shown as `waiting`, and started again the moment what it waits for is there. */
  private waiting(run: Run<R, F>, err: RuleWaits): void {
    const since = run.status.state === 'waiting' ? run.status.since : Date.now();
    run.status = statusOf('waiting', since, [err.part]);
    this.note(run.key, { key: 'ruleWaiting', vars: { reason: err.part } });
    let fired = false;
    const ready = () => {
      if (fired) return;
      fired = true;
      // Called from inside `until` too (it came meanwhile): the unsubscribe is not set yet then.
      queueMicrotask(() => {
        if (this.runs.get(run.key) !== run) return;
        run.unwait?.();
        run.unwait = null;
        void this.apply(run.key);
      });
    };
    const unwait = err.until(ready);
    if (fired) unwait();
    else run.unwait = unwait;
  }

  private failed(run: Run<R, F>, err: unknown): void {
    if (err instanceof RuleWaits) return this.waiting(run, err);
    const reason: Msg =
      err instanceof PortConflict ? err.msg : err instanceof RuleProblem ? err.part : { key: 'statusApplyFailed', vars: { detail: (err as Error)?.message ?? String(err) } };
    const retry = !(err instanceof RuleProblem) || err.retry;
    run.status = statusOf('error', Date.now(), [reason]);
    this.note(run.key, { key: 'ruleStartFailed', vars: { reason } });
    this.o.say.warn({ key: 'ruleFailedLog', vars: { module: moduleName(this.o.module), name: run.rule.name, reason } }, { rule: run.key });
    if (!retry) return;
    const { firstMs, maxMs } = this.o.retry ?? RETRY;
    const wait = Math.min(firstMs * 2 ** run.attempt, maxMs);
    run.attempt++;
    this.note(run.key, { key: 'ruleRetryIn', vars: { seconds: Math.round(wait / 1000) } });
    run.timer = setTimeout(() => void this.apply(run.key), wait);
    run.timer.unref();
  }

  private async closeHandle(run: Run<R, F>): Promise<void> {
    const handle = run.handle;
    if (!handle) return;
    run.handle = null;
    run.gen++;
    try {
      await handle.stop();
    } catch (err) {
      this.o.say.error({ key: 'statusApplyFailed', vars: { detail: (err as Error).message } }, { rule: run.key });
    }
  }

  private async stop(key: string): Promise<void> {
    const run = this.runs.get(key);
    if (!run) return;
    this.cancelRetry(run);
    const had = run.handle !== null;
    await this.closeHandle(run);
    this.runs.delete(key);
    this.o.ports.release(this.owner(key, run.rule));
    if (had) this.note(key, { key: 'ruleStopped' });
  }

  private note(key: string, line: Msg): void {
    this.o.logs.add(key, line);
  }

  /** The rule's status as the engine left it; 'stopped' when it is not running (the caller shows 'disabled'). */
  status(key: string): EngineStatus {
    return this.runs.get(key)?.status ?? statusOf('stopped', Date.now(), []);
  }

  async figures(key: string): Promise<F | undefined> {
    return this.runs.get(key)?.handle?.figures?.();
  }

  /** Module settings changed: the engine, if loaded, applies them. */
  async configure(settings: S): Promise<void> {
    const engine = this.engine ? await this.engine.catch(() => null) : null;
    await engine?.configure?.(settings);
  }

  connections(): number {
    return this.loaded?.connections?.() ?? 0;
  }
}
