/**
 * OCSP stapling of the certificates of running HTTPS rules. A certificate that names an OCSP
 * responder (authorityInfoAccess) and carries its issuer in its chain (the PEM's second certificate)
 * has its status asked of that responder, and only a good answer, checked against the issuer, is
 * stapled: by the edge (edgeOcsp) or by Node's TLS servers ('OCSPRequest'). The handshake never waits
 * on the network: what is stapled is what the last fetch brought. Most certificates name no responder
 * any more (Let's Encrypt ended OCSP in 2025): those cost a look at the certificate and nothing else.
 * The request goes to the responder the certificate (the user's CA) names, nowhere else.
 *
 * One certificate of several rules (or of one rule's old and new version during a save) is fetched
 * once: answers are kept per certificate while some rule watches it, and forgotten when none does.
 * Only the main thread fetches: serving threads of the Node path get the answers of their rules
 * from the coordinator (web.threads.ts), so that they load no HTTP client and ask nothing twice.
 */
import { X509Certificate } from 'node:crypto';
import type { Msg, MsgValue } from '@lucky/contracts';
import type { HttpFn } from '../../lib/http/request.js';
import { MsgError, msgOf } from '../../lib/msgerror.js';
import type { TlsCert } from '../../lib/tls/pem.js';
import type { Stapler } from './web.lifecycle.js';

/** The OCSP part of the edge addon (native/edge/ocsp.c): OpenSSL builds the request and checks the answer. */
export interface OcspAddon {
  ocspRequest(certPem: string, issuerPem: string): Buffer | null;
  /** [0 good, 1 revoked, 2 unknown, -1 not a valid answer for it; nextUpdate in ms, 0 when the answer has none]. */
  ocspCheck(der: Buffer, certPem: string, issuerPem: string): [number, number];
}

const GOOD = 0;
const REVOKED = 1;
const UNKNOWN = 2;

/** When to ask again. A module setting of the code, not the user's: tests shorten it. */
export const OCSP_TIMING = {
  /** A good answer is asked again half way to its nextUpdate, but no sooner than this... */
  minRefreshMs: 3600_000,
  /** ...and no later than this (also the life of an answer without a nextUpdate). */
  maxRefreshMs: 24 * 3600_000,
  /** A failed ask is tried again after this, doubling up to maxRetryMs. */
  firstRetryMs: 60_000,
  maxRetryMs: 3600_000,
  /** How long the responder may fail before the rule's log says so (once per outage). */
  warnAfterMs: 6 * 3600_000,
  /** One ask, connection to answer. */
  timeoutMs: 10_000,
};

/** An OCSP answer is a few KB; a responder sending more is not answering. */
const MAX_ANSWER = 64 * 1024;

/** The responder a certificate names, http(s) only; null when none. */
export function responderOf(x: X509Certificate): string | null {
  for (const line of (x.infoAccess ?? '').split('\n')) {
    const at = line.indexOf('OCSP - URI:');
    if (at !== 0) continue;
    let value = line.slice('OCSP - URI:'.length).trim();
    // Node quotes a value holding characters it would otherwise have to escape.
    if (value.startsWith('"')) {
      try {
        value = JSON.parse(value) as string;
      } catch {
        continue;
      }
    }
    try {
      const url = new URL(value);
      if (url.protocol === 'http:' || url.protocol === 'https:') return url.href;
    } catch {
      /* not a URL */
    }
  }
  return null;
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** What stapling needs of a rule's certificate, or null when it cannot be stapled (no responder, no issuer). */
export function staplingOf(cert: TlsCert): { leaf: X509Certificate; leafPem: string; issuerPem: string; url: string } | null {
  const pems = cert.cert.match(PEM_CERT) ?? [];
  if (pems.length < 2) return null;
  let leaf: X509Certificate;
  let issuer: X509Certificate;
  try {
    leaf = new X509Certificate(pems[0]!);
    issuer = new X509Certificate(pems[1]!);
  } catch {
    return null;
  }
  const url = responderOf(leaf);
  if (!url || !leaf.checkIssued(issuer)) return null;
  return { leaf, leafPem: pems[0]!, issuerPem: pems[1]!, url };
}

interface Watcher {
  staple(der: Buffer | null): void;
  revoked(url: string): void;
  failing(url: string, since: number, detail: MsgValue): void;
}

/** One certificate's answers, shared by the rules that serve it. */
interface Entry {
  key: string;
  url: string;
  leafPem: string;
  issuerPem: string;
  watchers: Set<Watcher>;
  /** The good answer stapled now, and until when it may be. */
  der: Buffer | null;
  expires: number;
  /** When to ask next. */
  due: number;
  retryMs: number;
  failingSince: number;
  warned: boolean;
  saidRevoked: boolean;
  timer: NodeJS.Timeout | null;
  fetching: boolean;
  gone: boolean;
}

/** A rule's certificates watched: answers for Node's servers, and `staple` called as they change. */
export interface OcspWatch {
  /** The good answer for a certificate of the rule, by its DER (as Node's 'OCSPRequest' gives it). */
  forCertificate(der: Buffer): Buffer | undefined;
  /** `staple` called again with every current answer (the edge took a new table, with new contexts). */
  replay(): void;
  /** The good answers now, with the certificate (DER) each is for. */
  stapled(): Array<{ certificate: Buffer; answer: Buffer }>;
  close(): void;
}

export interface OcspWatchOptions {
  /** Certificate `index` (the order of the rule's certificates) has this answer to staple now; null: none. */
  staple?(index: number, der: Buffer | null): void;
  /** A line for the rule's log. */
  note(line: Msg): void;
}

const NO_WATCH: OcspWatch = { forCertificate: () => undefined, replay: () => undefined, stapled: () => [], close: () => undefined };

export class OcspStapling {
  private entries = new Map<string, Entry>();
  /** The certificates of each watch, for the watch that replaces it. */
  private watched = new WeakMap<OcspWatch, Set<Entry>>();
  private http: Promise<HttpFn> | null = null;

  constructor(
    private o: {
      /** The edge addon's OCSP functions; null when this build has no edge (nothing is stapled). */
      addon: () => Promise<OcspAddon | null>;
      /** Requests to responders; by default the daemon's HTTP client. */
      http?: () => Promise<HttpFn>;
      now?: () => number;
    },
  ) {}

  private now(): number {
    return this.o.now ? this.o.now() : Date.now();
  }

  private client(): Promise<HttpFn> {
    this.http ??= this.o.http
      ? this.o.http()
      : import('../../lib/http/clients.js').then((m) => new m.HttpClients().client({ timeoutMs: OCSP_TIMING.timeoutMs, maxBytes: MAX_ANSWER }));
    return this.http;
  }

  /** Certificates being watched (tests). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Watches a rule's certificates. `previous`, the watch of the rule's version this one replaces,
   * has already told the rule's log what it had to say of a certificate both watch.
   */
  watch(certs: readonly TlsCert[], o: OcspWatchOptions, previous?: OcspWatch): OcspWatch {
    const told = (previous && this.watched.get(previous)) ?? new Set<Entry>();
    const parts: Array<{ index: number; raw: Buffer; entry: Entry; watcher: Watcher }> = [];
    certs.forEach((cert, index) => {
      const s = staplingOf(cert);
      if (!s) return;
      const names = cert.names.join(', ');
      const n = index + 1;
      const watcher: Watcher = {
        staple: (der) => o.staple?.(index, der),
        revoked: (url) => o.note({ key: 'webOcspRevoked', vars: { url, n, names } }),
        failing: (url, since, detail) => o.note({ key: 'webOcspFailing', vars: { url, n, names, since: new Date(since).toISOString().slice(0, 19).replace('T', ' ') + 'Z', detail } }),
      };
      const entry = this.entryFor(s.leaf.fingerprint256, s.url, s.leafPem, s.issuerPem);
      entry.watchers.add(watcher);
      parts.push({ index, raw: s.leaf.raw, entry, watcher });
      const der = this.current(entry);
      if (der) watcher.staple(der);
      if (entry.saidRevoked && !told.has(entry)) watcher.revoked(entry.url);
    });
    if (parts.length === 0) return NO_WATCH;
    let closed = false;
    const watch: OcspWatch = {
      forCertificate: (der) => {
        const p = parts.find((x) => x.raw.equals(der));
        return p ? (this.current(p.entry) ?? undefined) : undefined;
      },
      stapled: () =>
        parts.flatMap((p) => {
          const answer = this.current(p.entry);
          return answer ? [{ certificate: p.raw, answer }] : [];
        }),
      replay: () => {
        if (closed) return;
        for (const p of parts) {
          const der = this.current(p.entry);
          if (der) p.watcher.staple(der);
        }
      },
      close: () => {
        if (closed) return;
        closed = true;
        for (const p of parts) {
          p.entry.watchers.delete(p.watcher);
          if (p.entry.watchers.size === 0) this.forget(p.entry);
        }
      },
    };
    this.watched.set(watch, new Set(parts.map((p) => p.entry)));
    return watch;
  }

  /** Every certificate forgotten, timers stopped. */
  close(): void {
    for (const e of [...this.entries.values()]) this.forget(e);
  }

  private current(e: Entry): Buffer | null {
    return e.der && this.now() < e.expires ? e.der : null;
  }

  private entryFor(fingerprint: string, url: string, leafPem: string, issuerPem: string): Entry {
    const key = `${fingerprint} ${url}`;
    let e = this.entries.get(key);
    if (e) return e;
    e = {
      key,
      url,
      leafPem,
      issuerPem,
      watchers: new Set(),
      der: null,
      expires: 0,
      due: this.now(),
      retryMs: 0,
      failingSince: 0,
      warned: false,
      saidRevoked: false,
      timer: null,
      fetching: false,
      gone: false,
    };
    this.entries.set(key, e);
    // The first ask goes out at once, off the caller's path.
    this.arm(e, 0);
    return e;
  }

  private forget(e: Entry): void {
    e.gone = true;
    if (e.timer) clearTimeout(e.timer);
    e.timer = null;
    if (this.entries.get(e.key) === e) this.entries.delete(e.key);
  }

  private arm(e: Entry, delay: number): void {
    if (e.gone) return;
    if (e.timer) clearTimeout(e.timer);
    e.timer = setTimeout(() => this.wake(e), Math.max(0, Math.min(delay, 0x7fffffff)));
    e.timer.unref();
  }

  /** Whichever comes first: the next ask, or the stapled answer's expiry. */
  private schedule(e: Entry): void {
    const at = e.der ? Math.min(e.due, e.expires) : e.due;
    if (at !== Infinity) this.arm(e, at - this.now());
  }

  private wake(e: Entry): void {
    e.timer = null;
    if (e.gone) return;
    const now = this.now();
    if (e.der && now >= e.expires) this.setAnswer(e, null);
    if (now >= e.due && !e.fetching) {
      e.fetching = true;
      void this.ask(e).finally(() => {
        e.fetching = false;
        this.schedule(e);
      });
    } else if (!e.fetching) this.schedule(e);
  }

  private setAnswer(e: Entry, der: Buffer | null): void {
    const had = e.der;
    e.der = der;
    if (!der) e.expires = 0;
    if (had === der) return;
    for (const w of e.watchers) w.staple(der);
  }

  private async ask(e: Entry): Promise<void> {
    let status: number;
    let nextUpdate: number;
    let answer: Buffer;
    try {
      const addon = await this.o.addon();
      const request = addon?.ocspRequest(e.leafPem, e.issuerPem);
      // Without the edge addon (another system, no compiler at build time) nothing is stapled.
      if (!addon || !request) {
        e.due = Infinity;
        return;
      }
      const http = await this.client();
      if (e.gone) return;
      const res = await http({
        method: 'POST',
        url: e.url,
        headers: { 'content-type': 'application/ocsp-request', accept: 'application/ocsp-response' },
        body: request,
        raw: true,
      });
      if (res.status !== 200) throw new MsgError({ key: 'httpStatus', vars: { status: res.status } });
      answer = res.bytes ?? Buffer.alloc(0);
      [status, nextUpdate] = addon.ocspCheck(answer, e.leafPem, e.issuerPem);
    } catch (err) {
      return this.failed(e, msgOf(err));
    }
    if (e.gone) return;
    const now = this.now();
    if (status === GOOD) {
      e.expires = nextUpdate > now ? nextUpdate : now + OCSP_TIMING.maxRefreshMs;
      const half = (e.expires - now) / 2;
      e.due = now + Math.min(OCSP_TIMING.maxRefreshMs, Math.max(OCSP_TIMING.minRefreshMs, half));
      e.retryMs = 0;
      e.failingSince = 0;
      e.warned = false;
      e.saidRevoked = false;
      this.setAnswer(e, answer);
    } else if (status === REVOKED) {
      // Never stapled, and said once: a revoked certificate stays revoked; asked again daily.
      this.setAnswer(e, null);
      e.due = now + OCSP_TIMING.maxRefreshMs;
      e.retryMs = 0;
      e.failingSince = 0;
      if (!e.saidRevoked) {
        e.saidRevoked = true;
        for (const w of e.watchers) w.revoked(e.url);
      }
    } else {
      this.failed(e, status === UNKNOWN ? { key: 'webOcspUnknown' } : { key: 'webOcspInvalid' });
    }
  }

  /** No good answer: the stapled one stays until it expires; asked again with a growing pause. */
  private failed(e: Entry, detail: Msg): void {
    if (e.gone) return;
    const now = this.now();
    if (!e.failingSince) e.failingSince = now;
    e.retryMs = e.retryMs ? Math.min(OCSP_TIMING.maxRetryMs, e.retryMs * 2) : OCSP_TIMING.firstRetryMs;
    e.due = now + e.retryMs;
    if (!e.warned && now - e.failingSince >= OCSP_TIMING.warnAfterMs) {
      e.warned = true;
      for (const w of e.watchers) w.failing(e.url, e.failingSince, detail);
    }
  }
}

let shared: OcspStapling | null = null;

/** The process's stapling (main thread), over the edge addon's OCSP functions. */
export function ocspStapling(): OcspStapling {
  shared ??= new OcspStapling({ addon: () => import('./web.edge.js').then((m) => m.edgeAddon()) });
  return shared;
}

/** Node's servers on the main thread staple what the process's stapling fetched. */
export const mainStapler: Stapler = {
  watch: (_key, certs, note, previous) => ocspStapling().watch(certs, { note }, previous),
};
