/**
 * Serving threads when they are needed: "automatic" starts every rule on the main thread (each
 * serving thread costs about 10 MB, which an idle router has better uses for) and moves the rules
 * to serving threads once the main thread stays busy while web rules have connections. The move
 * drops nothing: the main thread listens with SO_REUSEPORT, so the threads open their sockets on
 * the port first; then the main thread stops accepting and lets its connections finish, each
 * closed after its next answer (the client reconnects, to a thread). Rules stay on the threads
 * until the setting changes or the daemon restarts.
 */
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { Msg, WebFigures } from '@lucky/contracts';
import type { Say } from '../../core/logs.js';
import { listenReusePort } from '../../core/native.js';
import type { WebPlan } from './web.compile.js';
import { WebListeners, zeroFigures } from './web.lifecycle.js';
import { listenHost } from './web.listen.js';
import type { AccessLogPage, Serving, ServingEvents } from './web.serving.js';
import { listenFailure, WebThreads } from './web.threads.js';

/** How busy the main thread must stay, for how long, before the rules move (samples each second). */
export const BUSY = { utilization: 0.6, seconds: 5 };
/** How long connections of the main thread may take to finish after the move. */
const DRAIN_MS = 5 * 60_000;

/** Is the main thread busy, sampled once a second: true after `seconds` busy samples in a row. */
export class BusyWatch {
  private last: EventLoopUtilization = performance.eventLoopUtilization();
  private streak = 0;

  constructor(private limits = BUSY) {}

  sample(utilization = this.next()): boolean {
    this.streak = utilization >= this.limits.utilization ? this.streak + 1 : 0;
    return this.streak >= this.limits.seconds;
  }

  private next(): number {
    const now = performance.eventLoopUtilization();
    const u = performance.eventLoopUtilization(now, this.last).utilization;
    this.last = now;
    return u;
  }
}

interface Placed {
  plan: WebPlan;
  events: ServingEvents;
}

const add = (a: WebFigures, b: WebFigures): WebFigures => {
  const codes = { ...a.codes };
  for (const [c, n] of Object.entries(b.codes)) codes[c] = (codes[c] ?? 0) + n;
  return { requests: a.requests + b.requests, bytesIn: a.bytesIn + b.bytesIn, bytesOut: a.bytesOut + b.bytesOut, connections: a.connections + b.connections, codes };
};

export class AutoServing implements Serving {
  private main: WebListeners;
  private pool: WebThreads | null = null;
  private placed = new Map<string, Placed>();
  private onThreads = new Set<string>();
  /** Rules moved to the threads: their main-thread figures, live while draining, then final. */
  private before = new Map<string, () => WebFigures>();
  private draining = new Set<Promise<unknown>>();
  private moving: Promise<void> | null = null;
  private timer: NodeJS.Timeout;

  constructor(
    private o: {
      /** Threads to move to. */
      threads: number;
      workerFile: string;
      say: Say;
      /** Tests decide when the main thread is busy. */
      watch?: { sample(): boolean };
      /** The main thread's file servers send large bodies by sendfile. */
      nativeFiles?: boolean;
    },
  ) {
    this.main = new WebListeners({ say: o.say, nativeFiles: o.nativeFiles ?? false });
    const watch = o.watch ?? new BusyWatch();
    this.timer = setInterval(() => {
      if (watch.sample() && !this.pool && this.main.connections() > 0) void this.moveToThreads();
    }, 1000);
    this.timer.unref();
  }

  get threads(): number {
    return this.pool ? this.pool.threads : 1;
  }

  /** The rules have moved to serving threads (one of them, on one CPU). */
  get moved(): boolean {
    return this.pool !== null;
  }

  /** Where a rule is served: the threads once it moved (or started after the move), else here. */
  private where(key: string): Serving {
    return this.pool && this.onThreads.has(key) ? this.pool : this.main;
  }

  /** The main thread listens with SO_REUSEPORT, so that threads can join the port later. */
  private async openMain(key: string, plan: WebPlan, events: ServingEvents): Promise<Msg[]> {
    let fd: number;
    try {
      fd = listenReusePort(listenHost(plan.rule), plan.rule.port, plan.rule.network === 'tcp6');
    } catch (err) {
      throw listenFailure(plan, err);
    }
    return this.main.open(key, plan, events, fd);
  }

  private async settled(): Promise<void> {
    while (this.moving) await this.moving;
  }

  async open(key: string, plan: WebPlan, events: ServingEvents): Promise<Msg[]> {
    await this.settled();
    await this.where(key).stop(key);
    const warnings = this.pool ? await this.pool.open(key, plan, events) : await this.openMain(key, plan, events);
    if (this.pool) this.onThreads.add(key);
    this.placed.set(key, { plan, events });
    return warnings;
  }

  async apply(key: string, plan: WebPlan): Promise<Msg[]> {
    await this.settled();
    const warnings = await this.where(key).apply(key, plan);
    const p = this.placed.get(key);
    if (p) p.plan = plan;
    return warnings;
  }

  async stop(key: string): Promise<void> {
    await this.settled();
    const from = this.where(key);
    this.placed.delete(key);
    this.onThreads.delete(key);
    this.before.delete(key);
    await from.stop(key);
  }

  /** Every rule to the serving threads, without refusing a connection on the way. */
  moveToThreads(): Promise<void> {
    this.moving ??= (async () => {
      const pool = new WebThreads({ threads: this.o.threads, workerFile: this.o.workerFile, say: this.o.say });
      this.pool = pool;
      for (const [key, p] of this.placed) {
        try {
          await pool.open(key, p.plan, p.events);
        } catch {
          // The threads could not take it: it stays served where it is, the main thread.
          continue;
        }
        this.onThreads.add(key);
        const { figures, done } = this.main.drain(key, DRAIN_MS);
        this.before.set(key, figures);
        const d = done.then((last) => {
          if (this.before.get(key) === figures) this.before.set(key, () => ({ ...last, connections: 0 }));
        });
        this.draining.add(d);
        void d.finally(() => this.draining.delete(d));
      }
      this.o.say.info({ key: 'webMovedToThreads', vars: { threads: pool.threads, rules: this.placed.size } });
    })().finally(() => {
      this.moving = null;
    });
    return this.moving;
  }

  async figures(key: string): Promise<WebFigures> {
    const here = await this.where(key).figures(key);
    const earlier = this.before.get(key)?.() ?? zeroFigures();
    return add(here, earlier);
  }

  async accessLog(key: string, limit: number): Promise<AccessLogPage> {
    return this.where(key).accessLog(key, limit);
  }

  connections(): number {
    return this.main.connections() + (this.pool?.connections() ?? 0);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.settled();
    await this.main.close();
    await this.pool?.close();
    await Promise.all([...this.draining]);
    this.placed.clear();
    this.before.clear();
  }
}
