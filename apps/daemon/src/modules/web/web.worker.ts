/**
 * A web serving thread: a WebEngine that serves the rules the coordinator (web.threads.ts) hands it
 * on listening sockets the coordinator opened. It answers the coordinator's calls and sends back its
 * rule log lines, program log records and connection count; it decides nothing about listeners.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { RuleStatus, WebRule } from '@lucky/contracts';
import { RuleLogs, type StatusPart } from '../../core/engine.js';
import type { Logger } from '../../core/logs.js';
import { useClockAnchor } from '../../core/time.js';
import { WebEngine } from './web.engine.js';

/** Coordinator → thread. */
export type ThreadCall =
  | { id: number; op: 'start'; key: string; rule: WebRule; fd?: number }
  | { id: number; op: 'stop'; key: string }
  | { id: number; op: 'figures'; key: string }
  | { id: number; op: 'accessLog'; key: string; limit: number }
  | { id: number; op: 'close' };

/** Thread → coordinator: an answer, a rule log line, a program log record, the connection count. */
export type ThreadEvent =
  | { op: 'reply'; id: number; value?: unknown; error?: string }
  | { op: 'note'; key: string; line: string }
  | { op: 'log'; level: 'error' | 'warn' | 'info' | 'debug'; fields: Record<string, unknown>; msg: string }
  | { op: 'connections'; n: number };

export interface StartReply {
  state: RuleStatus['state'];
  /** Why it is not running (in parts, for each caller's language). */
  parts: StatusPart[];
  warnings: StatusPart[];
}

const port = parentPort;
if (!port) throw new Error('web.worker runs as a worker thread');
const send = (e: ThreadEvent) => port.postMessage(e);

class ForwardedLogs extends RuleLogs {
  override add(key: string, line: string): void {
    send({ op: 'note', key, line });
  }
}

/** Just what the engine calls; records go to the daemon's logger (errors as plain fields). */
function forwardingLogger(): Logger {
  const at =
    (level: 'error' | 'warn' | 'info' | 'debug') =>
    (fields: Record<string, unknown> | string, msg?: string): void => {
      if (typeof fields === 'string') return send({ op: 'log', level, fields: {}, msg: fields });
      const plain: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(fields)) plain[k] = v instanceof Error ? { message: v.message, code: (v as NodeJS.ErrnoException).code } : v;
      send({ op: 'log', level, fields: plain, msg: msg ?? '' });
    };
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug'), trace: () => undefined } as unknown as Logger;
}

const data = (workerData ?? {}) as { threads?: number; clockAnchor?: number };
if (typeof data.clockAnchor === 'number') useClockAnchor(data.clockAnchor);

const engine = new WebEngine({
  log: forwardingLogger(),
  logs: new ForwardedLogs(),
  servingThread: true,
  // The threads' caches together stay within the rule's bound.
  cacheShare: 1 / Math.max(1, data.threads ?? 1),
});

async function answer(m: ThreadCall): Promise<unknown> {
  switch (m.op) {
    case 'start': {
      await engine.start(m.key, m.rule, m.fd);
      const s = engine.status(m.key);
      return { state: s.state, parts: s.parts ?? [], warnings: engine.warnings(m.key) } satisfies StartReply;
    }
    case 'stop':
      return engine.stop(m.key);
    case 'figures':
      return engine.figures(m.key);
    case 'accessLog':
      return engine.accessLog(m.key, m.limit);
    case 'close':
      return engine.close();
  }
}

port.on('message', (m: ThreadCall) => {
  answer(m).then(
    (value) => send({ op: 'reply', id: m.id, value }),
    (err: unknown) => send({ op: 'reply', id: m.id, error: err instanceof Error ? err.message : String(err) }),
  );
});

// The status page's connection count, sent when it changes (at most once a second).
let lastConnections = -1;
setInterval(() => {
  const n = engine.connections();
  if (n !== lastConnections) send({ op: 'connections', n: (lastConnections = n) });
}, 1000).unref();
