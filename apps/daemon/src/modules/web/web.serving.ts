/**
 * Where web rules are served: on the main thread (web.lifecycle.ts) or by serving threads
 * (web.threads.ts), as the module setting says. Both offer the engine (web.engine.ts) the same
 * operations, and a rule's figures and access log read the same from either.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Msg, WebAccessEntry, WebConfigure, WebFigures } from '@lucky/contracts';
import type { DaemonEnv } from '../../core/env.js';
import type { Say } from '../../core/logs.js';
import { canDupListener, nativeAddon } from '../../core/native.js';
import type { WebPlan } from './web.compile.js';
import { WebListeners } from './web.lifecycle.js';
import { WebThreads } from './web.threads.js';
import { AutoServing } from './web.autoscale.js';
import { EdgeServing, edgeAddon } from './web.edge.js';
import { mainStapler } from './web.ocsp.js';

/** What a running rule tells beyond its start: lines for its log (a backend marked down...). */
export interface ServingEvents {
  note(line: Msg): void;
  /** An active health check changed its verdict on a site's backend (sites and backends by index). */
  health?(site: number, backend: number, up: boolean): void;
  /** A site's basic auth verified an Authorization header (sites by index), good for `ms`. */
  authorized?(site: number, header: string, ms: number): void;
  /** A site's portal session checked and allowed here: the edge accepts its token itself for `ms`, as `user`. */
  session?(site: number, token: string, ms: number, user: string): void;
}

export interface AccessLogPage {
  list: WebAccessEntry[];
  total: number;
}

export interface Serving {
  /** Threads that serve (1 on the main thread). */
  readonly threads: number;
  /** The daemon's main thread serves (no serving thread does). */
  readonly onMain: boolean;
  /**
   * Opens the rule's listener and serves it. Resolves with what it runs with but should not (a
   * missing file root); throws a RuleProblem when it cannot run (port in use, certificate rejected).
   */
  open(key: string, plan: WebPlan, events: ServingEvents): Promise<Msg[]>;
  /** The rule saved with the same listener: served in place, connections carry on. */
  apply(key: string, plan: WebPlan): Promise<Msg[]>;
  stop(key: string): Promise<void>;
  figures(key: string): WebFigures | Promise<WebFigures>;
  accessLog(key: string, limit: number): AccessLogPage | Promise<AccessLogPage>;
  connections(): number;
  /** Stops every rule and lets go of the threads. */
  close(): Promise<void>;
}

/** The built worker, from src/modules/web or dist/modules/web alike. */
const WORKER = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'dist', 'modules', 'web', 'web.worker.js');

/**
 * What the settings ask for. `threads`: a count of serving threads, or 'auto': on the Node path the
 * main thread, moving to one thread per CPU (up to 4) once it gets busy (web.autoscale.ts), on one
 * CPU too: a serving thread has the young generation a busy proxy needs, which the main thread (1 MB
 * semi-spaces, nodeoptions.ts) has not; on the native data plane one thread per CPU (up to 4).
 * `mainOnly`: the Node path serves on the main thread whatever the count (the native data plane has
 * no such mode and runs `threads`).
 */
export interface ThreadChoice {
  threads: number | 'auto';
  mainOnly: boolean;
}

/** The module setting when it names a count or the main thread, else LUCKY_WEB_THREADS when set, else automatic. */
export function servingThreads(setting: Pick<WebConfigure, 'servingThreads' | 'mainThreadOnly'>, env: number | 'main' | undefined): ThreadChoice {
  const mainOnly = setting.mainThreadOnly || (setting.servingThreads === 0 && env === 'main');
  if (setting.servingThreads > 0) return { threads: setting.servingThreads, mainOnly };
  if (typeof env === 'number' && env > 0) return { threads: env, mainOnly };
  return { threads: 'auto', mainOnly };
}

/** Whether serving as `b` asks would change anything for rules served as `a` is (on the engine `native` says). */
export function sameChoice(a: ThreadChoice, b: ThreadChoice, native: boolean): boolean {
  return a.threads === b.threads && (native || a.mainOnly === b.mainOnly);
}

/**
 * Serving threads need the native addon (SO_REUSEPORT) and the built worker; without them, or when
 * the settings ask for the main thread, the main thread serves.
 */
export function createServing(choice: ThreadChoice, o: { say: Say; workerFile?: string; env?: Readonly<DaemonEnv>; engine?: 'native' | 'node' }): Serving {
  const { threads } = choice;
  // The relay thread's sendfile serves the main thread only (serving threads stream their files).
  const nativeFiles = o.env?.nativeRelay ?? false;
  if (o.engine !== 'node') {
    const edge = edgeAddon();
    // The edge's threads are small (no JavaScript heap): as many as asked, or one per CPU (up to 4) at once.
    if (edge) return new EdgeServing(edge, { threads: threads === 'auto' ? Math.min(availableParallelism(), 4) : threads, say: o.say, nativeFiles });
  }
  const workerFile = o.workerFile ?? WORKER;
  const can = nativeAddon() !== null && existsSync(workerFile);
  if (!choice.mainOnly && can) {
    // Moves hand each rule's listening sockets over as descriptors of the same sockets.
    if (threads === 'auto') {
      if (canDupListener()) return new AutoServing({ threads: Math.min(availableParallelism(), 4), workerFile, say: o.say, nativeFiles });
    } else return new WebThreads({ threads, workerFile, say: o.say });
  }
  return new WebListeners({ say: o.say, stapling: mainStapler, nativeFiles });
}
