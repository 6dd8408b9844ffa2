/**
 * One running task: its records' states, what it last wrote, and one sync of it. Per family: get
 * the address (or the one another module published) → skip if unchanged since the last good sync
 * (until forced sync is due) → optional resolver check → provider (read, then create or update
 * when different) → webhook.
 */
import {
  DDNS_PROVIDER_INFO,
  parseHostPort,
  type DdnsConfigure,
  type DdnsProviderName,
  type DdnsSyncStatus,
  type DdnsTask,
  type Msg,
  type MsgValue,
} from '@lucky/contracts';
import type { RuleContext } from '../../core/engine.js';
import type { WebhooksService } from '../../core/services/index.js';
import { parseDomain, type DomainName } from '../../lib/dns/domain.js';
import { providerContext, setRecord } from '../../lib/dns/providers/index.js';
import { normalizeIp, queryAddresses } from '../../lib/dns/wire.js';
import type { HttpClients } from '../../lib/http/clients.js';
import { msgOf } from '../../lib/msgerror.js';
import type { DdnsHistory, HistoryLine } from './ddns.history.js';
import { FAMILY_NAME } from './ddns.ipsource.js';
import type { IpShare } from './ddns.ipshare.js';
import { familiesOf, TYPE_OF, type AddressType, type DdnsFigures, type Family, type RecordState } from './ddns.view.js';

export interface SyncDeps {
  http: HttpClients;
  history: DdnsHistory;
  webhooks: WebhooksService;
  /** Provider API base URLs; set only by tests and the benchmark. */
  endpoints?: Partial<Record<DdnsProviderName, string>> | undefined;
  /** The engine's one lookup per IP source and cycle. */
  ips: IpShare;
  now: () => number;
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

const recordKey = (type: AddressType, domain: string) => `${type} ${domain}`;

/** 0 is the provider's default; anything else is raised to the provider's minimum. */
export function ttlFor(provider: DdnsProviderName, ttl: number): number {
  const info = DDNS_PROVIDER_INFO[provider];
  return ttl === 0 ? info.defaultTtl : Math.max(ttl, info.minTtl);
}

/** The message with every secret of the task blanked out of its values (a provider may echo them). */
function scrub(m: Msg, secrets: readonly string[]): Msg {
  if (!m.vars || secrets.length === 0) return m;
  const clean = (v: MsgValue): MsgValue => {
    if (typeof v === 'object') return scrub(v, secrets);
    if (typeof v !== 'string') return v;
    let out = v;
    for (const s of secrets) out = out.split(s).join('***').split(encodeURIComponent(s)).join('***');
    return out;
  };
  return { key: m.key, vars: Object.fromEntries(Object.entries(m.vars).map(([k, v]) => [k, clean(v)])) };
}

export class TaskRun {
  task!: DdnsTask;
  /** Bumped on every edit and on stop: results of a run for an older version are dropped. */
  gen = 0;
  stopped = false;
  private domains: Array<{ line: string; name?: DomainName; error?: Msg }> = [];
  private records = new Map<string, RecordState>();
  private lastIp: Partial<Record<Family, string>> = {};
  /** What was last written per record, for providers that cannot read back. */
  private written = new Map<string, string>();
  /** Addresses another module published through this task: used instead of its own source. */
  private pinned: Partial<Record<Family, string>> = {};
  private lastForced = 0;
  lastRun = 0;
  private lastCheck: number | null = null;
  private lastSync: number | null = null;
  private summary: Msg | null = null;
  /** Kept across versions of the task: a counter of the rule that starts again only with its engine. */
  private syncs: Partial<Record<DdnsSyncStatus, number>> = {};
  running: Promise<void> | null = null;
  /** Another run was asked for while one was running. */
  again: 'none' | 'normal' | 'forced' = 'none';

  constructor(
    task: DdnsTask,
    readonly ctx: RuleContext<DdnsConfigure>,
    private deps: SyncDeps,
  ) {
    this.reset(task);
  }

  get key(): string {
    return this.ctx.key;
  }

  /** A new version of the task: statuses and addresses start again. */
  reset(task: DdnsTask): void {
    const old = this.task;
    this.task = task;
    this.gen++;
    // What was written stays written while the provider and the account stay.
    if (!old || old.provider !== task.provider || JSON.stringify(old.credentials) !== JSON.stringify(task.credentials)) this.written = new Map();
    const now = this.deps.now();
    this.domains = task.domains.map((line) => {
      try {
        return { line, name: parseDomain(line) };
      } catch (err) {
        return { line, error: msgOf(err) };
      }
    });
    this.records = new Map();
    this.lastIp = {};
    // The forced-sync clock starts now: the first run may be settled by the resolver check.
    this.lastForced = now;
    this.lastRun = 0;
    this.lastCheck = null;
    this.lastSync = null;
    this.summary = null;
    for (const f of familiesOf(task)) {
      for (const d of this.domains) {
        const domain = d.name?.full ?? d.line;
        this.records.set(recordKey(TYPE_OF[f], domain), { domain, type: TYPE_OF[f], status: d.error ? 'updateFailed' : 'waitingForSync', ip: '', reason: d.error ?? null, at: now });
      }
    }
    this.report();
  }

  stop(): void {
    this.stopped = true;
    this.gen++;
  }

  /** Uses these addresses from now on instead of the task's own source. */
  pin(addresses: Partial<Record<Family, string>>, from: MsgValue): Family[] {
    const families = familiesOf(this.task).filter((f) => addresses[f]);
    for (const f of families) {
      this.pinned[f] = addresses[f]!;
      this.ctx.note({ key: 'ddnsAddressPublished', vars: { family: FAMILY_NAME[f], ip: addresses[f]!, from } });
    }
    return families;
  }

  figures(): DdnsFigures {
    const records = [...this.records.values()];
    return {
      status: SEVERITY.find((s) => records.some((r) => r.status === s)) ?? 'waitingForSync',
      ipv4: this.lastIp.ipv4 ?? '',
      ipv6: this.lastIp.ipv6 ?? '',
      lastCheck: this.lastCheck,
      lastSync: this.lastSync,
      summary: this.summary,
      records: records.map((r) => ({ ...r })),
      syncs: { ...this.syncs },
    };
  }

  private secrets(): string[] {
    const t = this.task;
    return [t.credentials.secret, t.credentials.secret2, t.proxy.password, t.webhook.proxy.password, this.ctx.settings().webhook.proxy.password].filter((s) => s.length >= 3);
  }

  private note(line: Msg): void {
    this.ctx.note(scrub(line, this.secrets()));
  }

  private history(line: HistoryLine): void {
    this.deps.history.add(this.key, { ...line, message: line.message && scrub(line.message, this.secrets()) });
  }

  /** The rule's status: an error naming the first failed record while any has failed. */
  private report(): void {
    const failed = [...this.records.values()].filter((r) => r.status === 'updateFailed');
    const first = failed[0];
    if (!first) return this.ctx.report(null);
    const parts: Msg[] = [{ key: 'ddnsRecordFailed', vars: { type: first.type, domain: first.domain, reason: first.reason ?? { key: 'ddnsFailedCount', vars: { n: 1 } } } }];
    if (failed.length > 1) parts.push({ key: 'statusMoreProblems', vars: { n: failed.length - 1 } });
    this.ctx.report(parts);
  }

  async runOnce(gen: number, manual: boolean, cycle: number): Promise<void> {
    const task = this.task;
    const { now } = this.deps;
    const start = now();
    const forceDue = manual || start - this.lastForced >= task.forceSync * 1000;
    const timeoutMs = task.httpTimeout * 1000;
    const http = this.deps.http.client({ timeoutMs, proxy: task.proxy, skipVerify: task.skipVerify });
    const ttl = ttlFor(task.provider, task.ttl);
    const succeeded: string[] = [];
    const failed: string[] = [];
    const ips: string[] = [];
    const live = () => this.gen === gen && !this.stopped;
    const set = (type: AddressType, domain: string, status: DdnsSyncStatus, ip: string, reason: Msg | null) => {
      if (!live()) return;
      this.records.set(recordKey(type, domain), { domain, type, status, ip, reason: reason && scrub(reason, this.secrets()), at: now() });
    };

    await Promise.all(
      familiesOf(task).map(async (family) => {
        const type = TYPE_OF[family];
        let ip: string;
        try {
          const pinned = this.pinned[family];
          const ask = { family, source: task[family], http, proxy: task.proxy, skipVerify: task.skipVerify, cycle, manual };
          ip = normalizeIp(pinned ?? (await this.deps.ips.lookup(ask)).ip);
        } catch (err) {
          const reason: Msg = { key: 'ddnsNoAddress', vars: { family: FAMILY_NAME[family], reason: msgOf(err) } };
          if (!live()) return;
          this.note(reason);
          for (const d of this.domains) {
            set(type, d.name?.full ?? d.line, 'updateFailed', this.lastIp[family] ?? '', reason);
            failed.push(d.name?.full ?? d.line);
          }
          this.history({ kind: 'ip', recordType: type, domain: '', ip: '', status: 'updateFailed', message: reason });
          return;
        }
        ips.push(ip);
        const previous = this.lastIp[family];
        const changed = previous !== ip;
        if (changed && live()) {
          const fam = FAMILY_NAME[family];
          this.note(previous ? { key: 'ddnsAddressChanged', vars: { family: fam, ip, previous } } : { key: 'ddnsAddressIs', vars: { family: fam, ip } });
          this.history({ kind: 'ip', recordType: type, domain: '', ip, status: '', message: previous ? { key: 'ddnsWas', vars: { previous } } : null });
          this.lastIp[family] = ip;
        }
        for (const d of this.domains) {
          const domain = d.name?.full ?? d.line;
          if (!d.name) {
            set(type, domain, 'updateFailed', ip, d.error ?? null);
            failed.push(domain);
            continue;
          }
          const rk = recordKey(type, domain);
          const prev = this.records.get(rk);
          if (!forceDue && !changed && prev && prev.ip === ip && SETTLED.has(prev.status)) {
            set(type, domain, 'ipUnchanged', ip, null);
            continue;
          }
          if (task.resolverCheck.enable && !forceDue) {
            const answer = await this.resolve(d.name.full, type, timeoutMs);
            if (answer && answer.length > 0 && answer.every((a) => a.toLowerCase() === ip.toLowerCase())) {
              set(type, domain, 'dnsRecordSame', ip, null);
              continue;
            }
          }
          if (!DDNS_PROVIDER_INFO[task.provider].read && !forceDue && this.written.get(rk) === ip) {
            set(type, domain, 'ipSameAsRecord', ip, null);
            continue;
          }
          try {
            const outcome = await setRecord(
              task.provider,
              providerContext(task.provider, { creds: task.credentials, http, callback: task.callback, timeoutMs, now: () => new Date(now()), endpoints: this.deps.endpoints }),
              { domain: d.name, type, value: ip, ttl },
            );
            if (!live()) return;
            this.written.set(rk, ip);
            if (outcome === 'same') set(type, domain, 'providerRecordSame', ip, null);
            else {
              const done: Msg = { key: outcome === 'created' ? 'ddnsCreated' : 'ddnsUpdated' };
              set(type, domain, 'updateSucceeded', ip, done);
              succeeded.push(domain);
              this.note({ key: outcome === 'created' ? 'ddnsRecordCreated' : 'ddnsRecordUpdated', vars: { type, domain, ip } });
              this.history({ kind: 'sync', recordType: type, domain, ip, status: 'updateSucceeded', message: done });
            }
          } catch (err) {
            const reason = msgOf(err);
            set(type, domain, 'updateFailed', ip, reason);
            failed.push(domain);
            if (live()) {
              this.note({ key: 'ddnsRecordFailed', vars: { type, domain, reason } });
              this.history({ kind: 'sync', recordType: type, domain, ip, status: 'updateFailed', message: reason });
            }
          }
        }
      }),
    );
    if (!live()) return;
    this.lastCheck = now();
    if (forceDue) this.lastForced = start;
    if (succeeded.length) this.lastSync = this.lastCheck;
    for (const r of this.records.values()) this.syncs[r.status] = (this.syncs[r.status] ?? 0) + 1;
    this.summary = failed.length ? { key: 'ddnsFailedCount', vars: { n: failed.length } } : null;
    this.report();
    const settings = this.ctx.settings();
    const hook = task.webhook.enable ? task.webhook : settings.webhook.enable ? settings.webhook : null;
    if (hook && (succeeded.length || (failed.length && hook.onFailure))) {
      const values = { ipAddr: ips.join(','), successDomains: succeeded, failedDomains: failed };
      const res = await this.deps.webhooks.call(hook, values, { timeoutMs, skipVerify: task.skipVerify });
      if (!res || !live()) return;
      this.note({ key: res.success ? 'ddnsWebhookCalled' : 'ddnsWebhookFailed', vars: { reason: res.reason } });
      this.history({ kind: 'webhook', recordType: '', domain: '', ip: ips.join(','), status: res.success ? 'ok' : 'failed', message: res.reason });
    }
  }

  /** The resolver check: the first server that answers decides; null when none does. */
  private async resolve(name: string, type: AddressType, timeoutMs: number): Promise<string[] | null> {
    for (const s of this.task.resolverCheck.servers) {
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
}
