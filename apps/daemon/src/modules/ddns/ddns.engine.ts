/**
 * The sync engine. Each started task is a TaskRun (ddns.sync.ts); a timer checks all of them every
 * `interval` seconds, a bounded pool runs them concurrently, and every network call has the task's
 * own timeout, so one slow or failing provider never holds up the others. The HTTP clients (undici)
 * live here: this file is imported only when the first task starts or a provider is asked for.
 */
import { EMPTY_DDNS_CREDENTIALS, type DdnsConfigure, type DdnsCredentials, type DdnsIpSource, type DdnsProviderName, type DdnsTask, type HttpProxy, type MsgValue } from '@lucky/contracts';
import type { Engine, RuleContext, RuleHandle } from '../../core/engine.js';
import type { Say } from '../../core/logs.js';
import type { DnsClient, DnsClientOptions, WebhooksService } from '../../core/services/index.js';
import { parseDomain } from '../../lib/dns/domain.js';
import { listRecords, providerContext, removeRecord, setRecord, type RecordType } from '../../lib/dns/providers/index.js';
import { HttpClients } from '../../lib/http/clients.js';
import { msgOf } from '../../lib/msgerror.js';
import type { DdnsHistory } from './ddns.history.js';
import { getIp, type IpResult } from './ddns.ipsource.js';
import { IpShare } from './ddns.ipshare.js';
import { TaskRun, ttlFor } from './ddns.sync.js';
import { TYPE_OF, type DdnsFigures, type Family, type RecordState } from './ddns.view.js';

export interface DdnsEngineOptions {
  history: DdnsHistory;
  webhooks: WebhooksService;
  /** The module settings when the engine is created; `configure` brings later ones. */
  settings: DdnsConfigure;
  say: Say;
  /** Provider API base URLs; set only by tests and the benchmark. */
  endpoints?: Partial<Record<DdnsProviderName, string>> | undefined;
  /** A task that ran this recently is not run again by the timer (15 s). */
  minRerunMs?: number;
  /** Backoff of a failing IP source (tests shorten it). */
  ipShare?: { retryBaseMs?: number; retryMaxMs?: number };
  now?: () => number;
}

class Limiter {
  private active = 0;
  private waiting: Array<() => void> = [];
  constructor(public max: number) {}
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await new Promise<void>((r) => this.waiting.push(r));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

export class DdnsEngine implements Engine<DdnsTask, DdnsConfigure, DdnsFigures> {
  readonly http = new HttpClients();
  private runs = new Map<string, TaskRun>();
  private settings: DdnsConfigure;
  private limiter: Limiter;
  private timer: NodeJS.Timeout | undefined;
  /** The first check waits `firstDelay` from the first task's start (the module's start). */
  private readyAt: number | null = null;
  private readonly minRerunMs: number;
  private readonly now: () => number;
  /** One lookup per distinct IP source and cycle, shared by every task using it. */
  readonly ips: IpShare;
  /**
   * Runs that go together: a periodic check opens one; a run asked for while the current one still
   * has runs waiting or running joins it, else opens the next (so an address is never older than
   * the burst of runs it serves).
   */
  private cycle = { id: 0, open: 0, closed: true };

  constructor(private o: DdnsEngineOptions) {
    this.settings = o.settings;
    this.limiter = new Limiter(o.settings.concurrency);
    this.minRerunMs = o.minRerunMs ?? 15_000;
    this.now = o.now ?? Date.now;
    this.ips = new IpShare({ ...o.ipShare, now: this.now });
  }

  async start(task: DdnsTask, ctx: RuleContext<DdnsConfigure>): Promise<RuleHandle<DdnsTask, DdnsFigures>> {
    if (this.readyAt === null) {
      this.readyAt = this.now() + this.settings.firstDelay * 1000;
      this.arm(this.settings.firstDelay * 1000);
    }
    const run = new TaskRun(task, ctx, { http: this.http, history: this.o.history, webhooks: this.o.webhooks, endpoints: this.o.endpoints, ips: this.ips, now: this.now });
    this.runs.set(ctx.key, run);
    // Saved or switched on: it applies at once, unless the module's first-check delay still runs.
    if (this.ready()) void this.trigger(run, 'normal', true);
    return {
      stop: async () => {
        // A run in flight is abandoned: its results are dropped.
        run.stop();
        if (this.runs.get(ctx.key) === run) this.runs.delete(ctx.key);
      },
      update: (next) => {
        const busy = run.running !== null;
        run.reset(next);
        if (!this.ready()) return true;
        // After a run of the previous version still in flight, so that both never create the same record.
        if (busy) run.again = run.again === 'forced' ? 'forced' : 'normal';
        else void this.trigger(run, 'normal', true);
        return true;
      },
      figures: () => run.figures(),
    };
  }

  private ready(): boolean {
    return this.readyAt !== null && this.now() >= this.readyAt;
  }

  /** Module settings changed: the pool's size, and the timer restarts with the new interval. */
  configure(s: DdnsConfigure): void {
    this.settings = s;
    this.limiter.max = s.concurrency;
    if (this.readyAt !== null) this.arm(s.interval * 1000);
  }

  private arm(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      void this.tick();
      this.arm(this.settings.interval * 1000);
    }, delayMs);
    this.timer.unref();
  }

  /** One check of every task (the timer's call; tests call it too): each IP source is asked once for it. */
  tick(): Promise<void> {
    this.cycle = { id: this.cycle.id + 1, open: 0, closed: false };
    return Promise.all([...this.runs.values()].map((run) => this.trigger(run, 'normal'))).then(() => undefined);
  }

  private trigger(run: TaskRun, kind: 'normal' | 'forced', ignoreRecent = false): Promise<void> {
    if (run.running) {
      // The run in flight covers a timer check; a forced one (manual sync) runs again after it.
      if (kind === 'forced') run.again = 'forced';
      return run.running;
    }
    if (!ignoreRecent && this.now() - run.lastRun < this.minRerunMs) return Promise.resolve();
    run.lastRun = this.now();
    const gen = run.gen;
    if (this.cycle.closed) this.cycle = { id: this.cycle.id + 1, open: 0, closed: false };
    const cycle = this.cycle;
    cycle.open++;
    run.running = this.limiter
      .run(() => run.runOnce(gen, kind === 'forced', cycle.id))
      .catch((err: unknown) => {
        this.o.say.error({ key: 'ddnsRunFailed', vars: { name: run.task.name, reason: msgOf(err) } }, { rule: run.key });
      })
      .finally(() => {
        if (--cycle.open === 0) cycle.closed = true;
        run.running = null;
        const again = run.again;
        run.again = 'none';
        if (again !== 'none' && this.runs.get(run.key) === run) void this.trigger(run, again, true);
      });
    return run.running;
  }

  /** Runs a task now, forced, and waits for it (and for a run it had to follow) up to `waitMs`. */
  async syncNow(key: string, waitMs = Infinity): Promise<{ done: boolean; figures: DdnsFigures } | null> {
    const run = this.runs.get(key);
    if (!run) return null;
    const finished = (async () => {
      await this.trigger(run, 'forced', true);
      // A run that was already going may have been for the old settings: wait for the forced one too.
      while (run.running) await run.running;
      return true;
    })();
    let timer: NodeJS.Timeout | undefined;
    const done = await (Number.isFinite(waitMs) ? Promise.race([finished, new Promise<boolean>((r) => (timer = setTimeout(() => r(false), waitMs)))]) : finished);
    clearTimeout(timer);
    return { done, figures: run.figures() };
  }

  /** Publishes addresses through a running task (forced), and answers with its records of those families. */
  async publish(key: string, addresses: Partial<Record<Family, string>>, from: MsgValue): Promise<RecordState[] | null> {
    const run = this.runs.get(key);
    if (!run) return null;
    const families = run.pin(addresses, from);
    const r = await this.syncNow(key);
    const types = families.map((f) => TYPE_OF[f]);
    return r ? r.figures.records.filter((rec) => types.includes(rec.type)) : [];
  }

  /** The addresses a running task found last ('' for none yet); null when it does not run. */
  addresses(key: string): { ipv4: string; ipv6: string } | null {
    const run = this.runs.get(key);
    if (!run) return null;
    const f = run.figures();
    return { ipv4: f.ipv4, ipv6: f.ipv6 };
  }

  /** A provider client on this engine's connections. */
  client(provider: DdnsProviderName, creds: Partial<DdnsCredentials>, o: DnsClientOptions = {}): DnsClient {
    const timeoutMs = o.timeoutMs ?? 20_000;
    const full: DdnsCredentials = { ...EMPTY_DDNS_CREDENTIALS, ...creds };
    const http = this.http.client({ timeoutMs, ...(o.proxy ? { proxy: o.proxy } : {}), skipVerify: o.skipVerify ?? false });
    const ctx = () => providerContext(provider, { creds: full, http, timeoutMs, now: () => new Date(this.now()), endpoints: this.o.endpoints });
    const ref = (record: { domain: string; type: RecordType; value?: string | undefined }) => ({
      domain: parseDomain(record.domain),
      type: record.type,
      ...(record.value !== undefined ? { value: record.value } : {}),
    });
    return {
      provider,
      set: async (record) => setRecord(provider, ctx(), { domain: parseDomain(record.domain), type: record.type, value: record.value, ttl: ttlFor(provider, record.ttl ?? 0) }),
      list: async (record) => listRecords(provider, ctx(), ref(record)),
      remove: async (record) => removeRecord(provider, ctx(), ref(record)),
    };
  }

  /** What an IP source gives now (the "test" button). */
  testSource(family: Family, source: DdnsIpSource, o: { timeoutMs: number; proxy: HttpProxy; skipVerify: boolean }): Promise<IpResult> {
    return getIp(family, source, { http: this.http.client(o) });
  }

  /** Every task has stopped: the timer ends and connections close. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.readyAt = null;
    for (const run of this.runs.values()) run.stop();
    this.runs.clear();
    await this.http.close();
  }
}
