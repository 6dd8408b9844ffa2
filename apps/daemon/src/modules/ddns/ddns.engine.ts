/**
 * The sync engine. Every task has a runtime with its records' states; a timer checks all tasks
 * every `interval` seconds, a bounded pool runs them concurrently, and every network call has the
 * task's own timeout, so one slow or failing provider never holds up the others.
 *
 * Per family: get the address → skip if unchanged since the last good sync (until forced sync is
 * due) → optional resolver check → provider (read, then create/update when different) → webhook.
 */
import {
  DDNS_PROVIDER_INFO,
  parseHostPort,
  type DdnsConfigure,
  type DdnsProviderName,
  type DdnsRecordState,
  type DdnsSyncState,
  type DdnsSyncStatus,
  type DdnsTask,
  type RuleStatus,
} from '@lucky/contracts';
import type { RuleEngine, RuleLogs } from '../../core/engine.js';
import type { Logger } from '../../core/logs.js';
import { formatTime } from '../../core/time.js';
import type { DdnsHistory } from './ddns.history.js';
import { normalizeIp, queryAddresses } from './dnswire.js';
import { parseDomain, type DomainName } from './domain.js';
import { HttpClients } from './http.js';
import { getIp, type Family } from './ipsource.js';
import { PROVIDERS } from './providers/index.js';
import type { RecordType } from './providers/types.js';
import { callWebhook } from './webhook.js';

export interface DdnsEngineOptions {
  log: Logger;
  logs: RuleLogs;
  history: DdnsHistory;
  /** Provider API base URLs; set only by tests and the benchmark. */
  endpoints?: Partial<Record<DdnsProviderName, string>>;
  /** A task that ran this recently is not run again by the timer (15 s). */
  minRerunMs?: number;
  now?: () => number;
}

interface TaskRuntime {
  key: string;
  task: DdnsTask;
  /** Bumped on every edit: results of a run for an older version are dropped. */
  gen: number;
  domains: Array<{ line: string; name?: DomainName; error?: string }>;
  records: Map<string, DdnsRecordState>;
  lastIp: Partial<Record<Family, string>>;
  /** What was last written per record, for providers that cannot read back. */
  written: Map<string, string>;
  lastForced: number;
  lastRun: number;
  lastCheck: number | null;
  lastSync: number | null;
  message: string;
  running: Promise<void> | null;
  /** Another run was asked for while one was running. */
  again: 'none' | 'normal' | 'forced';
}

/** Worst first: the task's overall status is the first of these any record has. */
const SEVERITY: DdnsSyncStatus[] = [
  'updateFailed',
  'syncStopped',
  'syncPaused',
  'waitingForSync',
  'updateSucceeded',
  'providerRecordSame',
  'dnsRecordSame',
  'ipSameAsRecord',
  'ipUnchanged',
];
const SETTLED = new Set<DdnsSyncStatus>(['updateSucceeded', 'providerRecordSame', 'dnsRecordSame', 'ipSameAsRecord', 'ipUnchanged']);

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

export function familiesOf(task: DdnsTask): Family[] {
  return task.recordType === 'both' ? ['ipv4', 'ipv6'] : task.recordType === 'A' ? ['ipv4'] : ['ipv6'];
}
const TYPE_OF: Record<Family, RecordType> = { ipv4: 'A', ipv6: 'AAAA' };
const recordKey = (type: RecordType, domain: string) => `${type} ${domain}`;

export function effectiveTtl(task: DdnsTask): number {
  const info = DDNS_PROVIDER_INFO[task.provider];
  return task.ttl === 0 ? info.defaultTtl : Math.max(task.ttl, info.minTtl);
}

export class DdnsEngine implements RuleEngine<DdnsTask> {
  readonly http = new HttpClients();
  private tasks = new Map<string, TaskRuntime>();
  private settings: DdnsConfigure | null = null;
  private limiter = new Limiter(32);
  private timer: NodeJS.Timeout | undefined;
  private readyAt = 0;
  private begun = false;
  private readonly minRerunMs: number;
  private readonly now: () => number;

  constructor(private opts: DdnsEngineOptions) {
    this.minRerunMs = opts.minRerunMs ?? 15_000;
    this.now = opts.now ?? Date.now;
  }

  /** Applies module settings; the timer restarts with the new interval. */
  configure(s: DdnsConfigure): void {
    this.settings = s;
    this.limiter.max = s.concurrency;
    if (this.begun) this.arm(s.interval * 1000);
  }

  /** Called when the module starts: the first check waits `firstDelay`. */
  begin(): void {
    const s = this.settings!;
    this.begun = true;
    this.readyAt = this.now() + s.firstDelay * 1000;
    this.arm(s.firstDelay * 1000);
  }

  private arm(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.tick();
      this.arm((this.settings?.interval ?? 300) * 1000);
    }, delayMs);
    this.timer.unref();
  }

  /** One check of every task (the timer's call; also the benchmark's). */
  tick(): Promise<void> {
    return Promise.all([...this.tasks.values()].map((rt) => this.trigger(rt, 'normal'))).then(() => undefined);
  }

  async start(key: string, task: DdnsTask): Promise<void> {
    const old = this.tasks.get(key);
    const rt: TaskRuntime = {
      key,
      task,
      gen: (old?.gen ?? 0) + 1,
      domains: task.domains.map((line) => {
        try {
          return { line, name: parseDomain(line) };
        } catch (err) {
          return { line, error: (err as Error).message };
        }
      }),
      records: new Map(),
      lastIp: {},
      written: new Map(),
      // The forced-sync clock starts now: the first run may be settled by the resolver check.
      lastForced: this.now(),
      lastRun: 0,
      lastCheck: null,
      lastSync: null,
      message: '',
      running: null,
      again: 'none',
    };
    // The provider's state is kept across edits when the provider and credentials stay: what was
    // written stays written. Everything else (statuses, addresses) starts again.
    if (old && old.task.provider === task.provider && JSON.stringify(old.task.credentials) === JSON.stringify(task.credentials)) {
      rt.written = old.written;
    }
    for (const f of familiesOf(task)) {
      for (const d of rt.domains) {
        const domain = d.name?.full ?? d.line;
        rt.records.set(recordKey(TYPE_OF[f], domain), {
          domain,
          type: TYPE_OF[f],
          status: d.error ? 'updateFailed' : 'waitingForSync',
          ip: '',
          message: d.error ?? '',
          at: this.now(),
        });
      }
    }
    this.tasks.set(key, rt);
    // Saved or switched on: it applies at once (after the first-check delay at boot) — but after a
    // run of the previous version still in flight, so that both never create the same record.
    if (this.begun && this.now() >= this.readyAt) {
      const prior = old?.running;
      if (prior) {
        void prior.then(async () => {
          if (this.tasks.get(key) === rt) await this.trigger(rt, 'normal', true);
        });
      }
      else void this.trigger(rt, 'normal', true);
    }
  }

  async stop(key: string): Promise<void> {
    const rt = this.tasks.get(key);
    if (!rt) return;
    rt.gen++;
    this.tasks.delete(key);
  }

  status(key: string): RuleStatus {
    const rt = this.tasks.get(key);
    if (!rt) return { state: 'stopped', message: '', since: this.now() };
    const failed = [...rt.records.values()].find((r) => r.status === 'updateFailed');
    if (failed) return { state: 'error', message: failed.message, since: failed.at };
    return { state: 'running', message: rt.message, since: rt.lastSync ?? rt.lastCheck ?? this.now() };
  }

  /** The list view's sync block for a stored task (running or not). */
  syncState(key: string, task: DdnsTask): DdnsSyncState {
    const rt = this.tasks.get(key);
    if (!rt) {
      const status: DdnsSyncStatus = task.enable ? 'syncPaused' : 'syncStopped';
      const records: DdnsRecordState[] = familiesOf(task).flatMap((f) =>
        task.domains.map((line) => ({ domain: line, type: TYPE_OF[f], status, ip: '', message: '', at: 0 })),
      );
      return { status, ipv4: '', ipv6: '', lastCheck: null, lastSync: null, message: '', records };
    }
    const records = [...rt.records.values()];
    const status = SEVERITY.find((s) => records.some((r) => r.status === s)) ?? 'waitingForSync';
    return {
      status,
      ipv4: rt.lastIp.ipv4 ?? '',
      ipv6: rt.lastIp.ipv6 ?? '',
      lastCheck: rt.lastCheck,
      lastSync: rt.lastSync,
      message: rt.message,
      records: records.map((r) => ({ ...r })),
    };
  }

  /** Runs a task now, forced (records are checked with the provider even if the address is unchanged). */
  async syncNow(key: string, waitMs = Infinity): Promise<{ done: boolean; sync: DdnsSyncState } | null> {
    const rt = this.tasks.get(key);
    if (!rt) return null;
    const finished = (async () => {
      await this.trigger(rt, 'forced', true);
      // A run that was already going may have been for the old settings: wait for the forced one too.
      while (rt.running) await rt.running;
      return true;
    })();
    let timer: NodeJS.Timeout | undefined;
    const done = await (Number.isFinite(waitMs)
      ? Promise.race([finished, new Promise<boolean>((r) => (timer = setTimeout(() => r(false), waitMs)))])
      : finished);
    clearTimeout(timer);
    return { done, sync: this.syncState(key, rt.task) };
  }

  private trigger(rt: TaskRuntime, kind: 'normal' | 'forced', ignoreRecent = false): Promise<void> {
    if (rt.running) {
      // The run in flight covers a timer check; a forced one (manual sync) runs again after it.
      if (kind === 'forced') rt.again = 'forced';
      return rt.running;
    }
    if (!ignoreRecent && this.now() - rt.lastRun < this.minRerunMs) return Promise.resolve();
    rt.lastRun = this.now();
    const gen = rt.gen;
    rt.running = this.limiter
      .run(() => this.runOnce(rt, gen, kind === 'forced'))
      .catch((err: unknown) => {
        this.opts.log.error({ err, key: rt.key }, 'ddns task run failed');
      })
      .finally(() => {
        rt.running = null;
        const again = rt.again;
        rt.again = 'none';
        if (again !== 'none' && this.tasks.get(rt.key) === rt) void this.trigger(rt, again, true);
      });
    return rt.running;
  }

  private scrub(rt: TaskRuntime, text: string): string {
    let out = text;
    for (const s of [rt.task.credentials.secret, rt.task.proxy.password, rt.task.webhook.proxy.password]) {
      if (s && s.length >= 3) out = out.split(s).join('***');
      if (s && s.length >= 3) out = out.split(encodeURIComponent(s)).join('***');
    }
    return out;
  }

  private line(rt: TaskRuntime, text: string): void {
    this.opts.logs.add(rt.key, `${formatTime(this.now())} ${this.scrub(rt, text)}`);
  }

  private async runOnce(rt: TaskRuntime, gen: number, manual: boolean): Promise<void> {
    const task = rt.task;
    const start = this.now();
    const forceDue = manual || start - rt.lastForced >= task.forceSync * 1000;
    const provider = PROVIDERS[task.provider];
    const timeoutMs = task.httpTimeout * 1000;
    const http = this.http.client({ timeoutMs, proxy: task.proxy, skipVerify: task.skipVerify });
    const ttl = effectiveTtl(task);
    const succeeded: string[] = [];
    const failed: string[] = [];
    const ips: string[] = [];
    const live = () => rt.gen === gen && this.tasks.get(rt.key) === rt;
    const set = (type: RecordType, domain: string, status: DdnsSyncStatus, ip: string, message: string) => {
      if (!live()) return;
      rt.records.set(recordKey(type, domain), { domain, type, status, ip, message: this.scrub(rt, message), at: this.now() });
    };

    await Promise.all(
      familiesOf(task).map(async (family) => {
        const type = TYPE_OF[family];
        let ip: string;
        try {
          const got = await getIp(family, task[family], { http });
          ip = normalizeIp(got.ip);
        } catch (err) {
          const msg = `cannot get the ${type === 'A' ? 'IPv4' : 'IPv6'} address: ${(err as Error).message}`;
          this.line(rt, msg);
          for (const d of rt.domains) {
            set(type, d.name?.full ?? d.line, 'updateFailed', rt.lastIp[family] ?? '', msg);
            failed.push(d.name?.full ?? d.line);
          }
          if (live()) this.opts.history.add(rt.key, { kind: 'ip', recordType: type, domain: '', ip: '', status: 'updateFailed', message: this.scrub(rt, msg) });
          return;
        }
        ips.push(ip);
        const changed = rt.lastIp[family] !== ip;
        if (changed && live()) {
          this.line(rt, `${type === 'A' ? 'IPv4' : 'IPv6'} address is ${ip}${rt.lastIp[family] ? ` (was ${rt.lastIp[family]})` : ''}`);
          this.opts.history.add(rt.key, { kind: 'ip', recordType: type, domain: '', ip, status: '', message: rt.lastIp[family] ? `was ${rt.lastIp[family]}` : '' });
          rt.lastIp[family] = ip;
        }
        for (const d of rt.domains) {
          const domain = d.name?.full ?? d.line;
          if (!d.name) {
            set(type, domain, 'updateFailed', ip, d.error ?? 'invalid domain');
            failed.push(domain);
            continue;
          }
          const rk = recordKey(type, domain);
          const prev = rt.records.get(rk);
          if (!forceDue && !changed && prev && prev.ip === ip && SETTLED.has(prev.status)) {
            set(type, domain, 'ipUnchanged', ip, '');
            continue;
          }
          if (task.resolverCheck.enable && !forceDue) {
            const answer = await this.resolve(task, d.name.full, type, timeoutMs);
            if (answer && answer.length > 0 && answer.every((a) => a.toLowerCase() === ip.toLowerCase())) {
              set(type, domain, 'dnsRecordSame', ip, '');
              continue;
            }
          }
          if (!provider.canRead && !forceDue && rt.written.get(rk) === ip) {
            set(type, domain, 'ipSameAsRecord', ip, '');
            continue;
          }
          try {
            const outcome = await provider.sync(
              {
                creds: task.credentials,
                http,
                base: this.opts.endpoints?.[task.provider] ?? provider.base,
                callback: task.callback,
                timeoutMs,
                now: () => new Date(this.now()),
              },
              { domain: d.name, type, ip, ttl },
            );
            if (!live()) return;
            rt.written.set(rk, ip);
            if (outcome === 'same') set(type, domain, 'providerRecordSame', ip, '');
            else {
              set(type, domain, 'updateSucceeded', ip, outcome);
              succeeded.push(domain);
              this.line(rt, `${outcome === 'created' ? 'created' : 'updated'} ${type} ${domain} → ${ip}`);
              this.opts.history.add(rt.key, { kind: 'sync', recordType: type, domain, ip, status: 'updateSucceeded', message: outcome });
            }
          } catch (err) {
            const msg = (err as Error).message;
            set(type, domain, 'updateFailed', ip, msg);
            failed.push(domain);
            if (live()) {
              this.line(rt, `update of ${type} ${domain} failed: ${msg}`);
              this.opts.history.add(rt.key, { kind: 'sync', recordType: type, domain, ip, status: 'updateFailed', message: this.scrub(rt, msg) });
            }
          }
        }
      }),
    );
    if (!live()) return;
    rt.lastCheck = this.now();
    if (forceDue) rt.lastForced = start;
    if (succeeded.length) rt.lastSync = rt.lastCheck;
    rt.message = failed.length ? `${failed.length} failed` : '';
    const hook = task.webhook.enable ? task.webhook : this.settings?.webhook.enable ? this.settings.webhook : null;
    if (hook && (succeeded.length || (failed.length && hook.onFailure))) {
      const res = await callWebhook(hook, { ipAddr: ips.join(','), successDomains: succeeded, failedDomains: failed }, this.http.client({ timeoutMs, proxy: hook.proxy, skipVerify: task.skipVerify }));
      if (!live()) return;
      this.line(rt, `webhook ${res.success ? 'called' : 'failed'}: ${res.message}`);
      this.opts.history.add(rt.key, { kind: 'webhook', recordType: '', domain: '', ip: ips.join(','), status: res.success ? 'ok' : 'failed', message: this.scrub(rt, res.message) });
    }
  }

  /** The resolver check: the first server that answers decides; null when none does. */
  private async resolve(task: DdnsTask, name: string, type: RecordType, timeoutMs: number): Promise<string[] | null> {
    for (const s of task.resolverCheck.servers) {
      const hp = parseHostPort(s, 53);
      if (!hp) continue;
      try {
        return await queryAddresses(hp, name, type, Math.min(timeoutMs, 5000));
      } catch {
        // try the next server
      }
    }
    return null;
  }

  /** Records of every task, for the benchmark. */
  get size(): number {
    return this.tasks.size;
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.begun = false;
    // Runs in flight are abandoned: their results are dropped and their sockets destroyed.
    for (const rt of this.tasks.values()) rt.gen++;
    this.tasks.clear();
    await this.http.close();
  }
}
