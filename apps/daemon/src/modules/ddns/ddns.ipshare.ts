/**
 * One lookup per distinct IP source and cycle. Tasks sharing a source (the same URLs and pattern,
 * interface and rule, command, or lease file, for one family, through the same proxy) share one
 * answer: public "what is my IP" services rate-limit a router that asks 200 times a minute.
 *
 * A cycle is what the engine runs together: a periodic check of every task, or runs asked for
 * while others still run or wait (the tasks started together, a "sync now" of all). An answer
 * serves the rest of its cycle; the next cycle asks again. A "sync now" also takes an answer
 * fetched in the last `freshMs` (2 s): syncs of many tasks asked one after another over HTTP arrive
 * spread out, each finishing before the next comes. A lookup under way is joined whatever its cycle. A source that failed answers with its failure, without being asked, until its backoff
 * has passed (doubling from `retryBaseMs` to `retryMaxMs` while it keeps failing).
 */
import type { DdnsIpSource, HttpProxy, Msg } from '@lucky/contracts';
import type { HttpFn } from '../../lib/http/request.js';
import { MsgError, msgOf } from '../../lib/msgerror.js';
import { getIp, type Family, type IpResult } from './ddns.ipsource.js';

export interface IpAsk {
  family: Family;
  source: DdnsIpSource;
  /** The asking task's client (its timeout); a lookup it starts runs on it. */
  http: HttpFn;
  /** With the certificate check, what besides the source decides a URL's answer. */
  proxy: HttpProxy;
  skipVerify: boolean;
  /** The engine's cycle the run belongs to. */
  cycle: number;
  /** A "sync now" (forced): an answer of the last `freshMs` serves it too. */
  manual: boolean;
}

export interface IpShareOptions {
  now: () => number;
  freshMs?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
}

interface Entry {
  cycle: number;
  startedAt: number;
  pending: Promise<IpResult> | null;
  result: IpResult | null;
  error: Msg | null;
  failures: number;
  retryAt: number;
}

/** Entries nobody asked for this long are forgotten (a source no task uses any more). */
const FORGET_MS = 15 * 60_000;

export class IpShare {
  private entries = new Map<string, Entry>();
  private readonly freshMs: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;

  constructor(private o: IpShareOptions) {
    this.freshMs = o.freshMs ?? 2000;
    this.retryBaseMs = o.retryBaseMs ?? 5000;
    this.retryMaxMs = o.retryMaxMs ?? 300_000;
  }

  lookup(ask: IpAsk): Promise<IpResult> {
    const now = this.o.now();
    const key = keyOf(ask);
    const e = this.entries.get(key);
    if (e?.pending) return e.pending;
    if (e && e.cycle === ask.cycle) return e.result ? Promise.resolve(e.result) : Promise.reject(new MsgError(e.error!));
    if (e?.result && ask.manual && now - e.startedAt <= this.freshMs) return Promise.resolve(e.result);
    if (e?.error && now < e.retryAt) {
      const seconds = Math.ceil((e.retryAt - now) / 1000);
      return Promise.reject(new MsgError({ key: 'ddnsSourceBackoff', vars: { reason: e.error, seconds } }));
    }
    this.forgetOld(now);
    return this.fetch(key, ask, e?.failures ?? 0, now);
  }

  private fetch(key: string, ask: IpAsk, failures: number, now: number): Promise<IpResult> {
    const entry: Entry = { cycle: ask.cycle, startedAt: now, pending: null, result: null, error: null, failures, retryAt: 0 };
    entry.pending = getIp(ask.family, ask.source, { http: ask.http }).then(
      (result) => {
        Object.assign(entry, { pending: null, result, failures: 0 });
        return result;
      },
      (err: unknown) => {
        const settled = this.o.now();
        entry.failures++;
        const wait = Math.min(this.retryBaseMs * 2 ** (entry.failures - 1), this.retryMaxMs);
        Object.assign(entry, { pending: null, error: msgOf(err), retryAt: settled + wait });
        throw err;
      },
    );
    this.entries.set(key, entry);
    return entry.pending;
  }

  private forgetOld(now: number): void {
    for (const [k, e] of this.entries) if (!e.pending && now >= e.retryAt && now - e.startedAt > FORGET_MS) this.entries.delete(k);
  }
}

/** What decides a lookup's answer: the fields its type reads, the family, and for URLs the route out. */
function keyOf(a: IpAsk): string {
  const s = a.source;
  const fields =
    s.type === 'url'
      ? [s.urls, s.regex, a.proxy, a.skipVerify]
      : s.type === 'interface'
        ? [s.interface, s.rule]
        : s.type === 'command'
          ? [s.command, s.regex, s.commandTimeout]
          : [s.odhcpdFile, s.odhcpdHost];
  return JSON.stringify([a.family, s.type, ...fields]);
}
