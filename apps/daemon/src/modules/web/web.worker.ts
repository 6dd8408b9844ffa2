/**
 * A web serving thread: WebListeners serving the rules the coordinator (web.threads.ts) hands it,
 * on listening sockets the coordinator opened. It answers the coordinator's calls and sends back the
 * rules' log lines, program log lines and its connection count, all as message keys with values:
 * the coordinator's readers render them in their own language. It loads no zod and no schemas
 * (`@lucky/contracts/runtime` only), so that each thread stays small.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Msg, WebFigures } from '@lucky/contracts';
import { RuleProblem } from '../../core/engine.js';
import type { Say } from '../../core/logs.js';
import { useClockAnchor } from '../../core/time.js';
import type { WebPlan } from './web.compile.js';
import { WebListeners, zeroFigures, type Stapler } from './web.lifecycle.js';
import { ticketKeys } from './web.tickets.js';
import { webDefender, type LockList } from './web.defender.js';
import { webPortal, type PortalAsk } from './web.portal.js';

/** Coordinator → thread. */
export type ThreadCall =
  | { id: number; op: 'start'; key: string; plan: WebPlan; fd: number }
  | { id: number; op: 'apply'; key: string; plan: WebPlan }
  | { id: number; op: 'stop'; key: string }
  /** Answered once the rule's connections here have finished (or were cut after graceMs), with its last figures. */
  | { id: number; op: 'drain'; key: string; graceMs: number }
  | { id: number; op: 'figures'; key: string }
  | { id: number; op: 'accessLog'; key: string; limit: number }
  /** The session ticket key of every thread's TLS servers, replaced (web.tickets.ts). */
  | { id: number; op: 'ticketKeys'; key: Uint8Array }
  /** The defender's locks now (web.defender.ts): addresses and until when. */
  | { id: number; op: 'locks'; list: LockList }
  /** The answer to the thread's question `ask` about the login portal (web.portal.ts). */
  | { id: number; op: 'portalAnswer'; ask: number; value: unknown }
  /** A portal session ended or a user changed: answers kept here are stale. */
  | { id: number; op: 'portalForget' }
  /** The rule's OCSP answers now (the coordinator fetches them), each with the certificate (DER) it is for. */
  | { id: number; op: 'ocsp'; key: string; stapled: Array<{ certificate: Uint8Array; answer: Uint8Array }> }
  | { id: number; op: 'close' };

/** Thread → coordinator: an answer, a rule log line, a program log line, the connection count. */
export type ThreadEvent =
  | { op: 'reply'; id: number; value?: unknown; error?: Msg }
  | { op: 'note'; key: string; line: Msg }
  | { op: 'say'; level: keyof Say; line: Msg; extra?: Record<string, unknown> }
  | { op: 'connections'; n: number }
  /** A basic-auth guess from this address was wrong (the coordinator tells the defender). */
  | { op: 'loginFailed'; ip: string }
  /** A question about the login portal (its sessions live on the main thread). */
  | { op: 'portal'; ask: number; q: PortalAsk };

/** How a start or apply went on this thread. */
export interface StartReply {
  /** Why the rule cannot run here; null when it runs. */
  problem: Msg | null;
  /** Waiting may mend the problem. */
  retry: boolean;
  /** What it runs with but should not. */
  warnings: Msg[];
}

const port = parentPort;
if (!port) throw new Error('web.worker runs as a worker thread');
const send = (e: ThreadEvent) => port.postMessage(e);

const at =
  (level: keyof Say) =>
  (line: Msg, extra?: Record<string, unknown>): void =>
    send({ op: 'say', level, line, ...(extra ? { extra } : {}) });
const say: Say = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };

const data = (workerData ?? {}) as { threads?: number; clockAnchor?: number; ticketKey?: Uint8Array; locks?: LockList };
if (typeof data.clockAnchor === 'number') useClockAnchor(data.clockAnchor);
webDefender.follow(data.locks ?? [], (ip) => send({ op: 'loginFailed', ip }));
const asked = new Map<number, (value: unknown) => void>();
let nextAsk = 1;
webPortal.follow(
  (q) =>
    new Promise((resolve) => {
      const ask = nextAsk++;
      asked.set(ask, resolve);
      send({ op: 'portal', ask, q });
    }),
);
// The coordinator's key: a client resumes on whichever thread its next connection reaches.
if (data.ticketKey) ticketKeys.follow(data.ticketKey);

/** OCSP answers by rule, as the coordinator last sent them: no fetching here (no HTTP client in a thread). */
const staples = new Map<string, Array<{ certificate: Buffer; answer: Buffer }>>();
const stapling: Stapler = {
  watch: (key) => ({
    forCertificate: (der) => staples.get(key)?.find((s) => s.certificate.equals(der))?.answer,
    replay: () => undefined,
    stapled: () => staples.get(key) ?? [],
    close: () => undefined,
  }),
};

// The threads' caches together stay within the rule's bound.
const listeners = new WebListeners({ say, cacheShare: 1 / Math.max(1, data.threads ?? 1), stapling });
/** Rules this thread stopped accepting for (serving moved elsewhere): their figures, live while they drain. */
const drained = new Map<string, () => WebFigures>();

async function started(run: () => Promise<Msg[]>): Promise<StartReply> {
  try {
    return { problem: null, retry: false, warnings: await run() };
  } catch (err) {
    if (err instanceof RuleProblem) return { problem: err.part, retry: err.retry, warnings: [] };
    throw err;
  }
}

async function answer(m: ThreadCall): Promise<unknown> {
  switch (m.op) {
    case 'start':
      return started(() => listeners.open(m.key, m.plan, { note: (line) => send({ op: 'note', key: m.key, line }) }, m.fd));
    case 'apply':
      return started(() => listeners.apply(m.key, m.plan));
    case 'stop':
      drained.delete(m.key);
      staples.delete(m.key);
      return listeners.stop(m.key);
    case 'drain': {
      const d = listeners.drain(m.key, m.graceMs);
      drained.set(m.key, d.figures);
      return d.done;
    }
    case 'figures':
      return listeners.has(m.key) ? listeners.figures(m.key) : (drained.get(m.key)?.() ?? zeroFigures());
    case 'accessLog':
      return listeners.accessLog(m.key, m.limit);
    case 'ticketKeys':
      return ticketKeys.follow(m.key);
    case 'locks':
      return webDefender.follow(m.list);
    case 'portalAnswer':
      asked.get(m.ask)?.(m.value);
      asked.delete(m.ask);
      return;
    case 'portalForget':
      return webPortal.forget();
    case 'ocsp':
      staples.set(
        m.key,
        m.stapled.map((s) => ({ certificate: Buffer.from(s.certificate), answer: Buffer.from(s.answer) })),
      );
      return;
    case 'close':
      return listeners.close();
  }
}

port.on('message', (m: ThreadCall) => {
  answer(m).then(
    (value) => send({ op: 'reply', id: m.id, value }),
    (err: unknown) => send({ op: 'reply', id: m.id, error: { key: 'statusApplyFailed', vars: { detail: err instanceof Error ? err.message : String(err) } } }),
  );
});

// The status page's connection count, sent when it changes (at most once a second).
let lastConnections = -1;
setInterval(() => {
  const n = listeners.connections();
  if (n !== lastConnections) send({ op: 'connections', n: (lastConnections = n) });
}, 1000).unref();
