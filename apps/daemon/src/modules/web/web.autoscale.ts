/**
 * Serving threads when they are needed: "automatic" starts every rule on the main thread (each
 * serving thread costs about 10 MB, which an idle router has better uses for), moves the rules to
 * serving threads once the main thread stays busy while web rules have connections, and moves them
 * back once the threads have stayed nearly idle for a minute, letting the threads go.
 *
 * A move loses no request. Each rule's listening sockets (SO_REUSEPORT, one per serving thread)
 * are opened here and outlive every move: the side that takes over polls its own descriptors of
 * the very same sockets before the side that gives up stops accepting, so no socket the kernel
 * queues connections on is ever closed (closing one reset what waited in its queue). The side that
 * gives up lets its connections finish (WebListeners.drain): each closes after an answer saying
 * `Connection: close`, or once idle for the keep-alive timeout, and its client reconnects, to the
 * side that serves now.
 */
import { closeSync } from 'node:fs';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { Msg, WebFigures } from '@lucky/contracts';
import type { Say } from '../../core/logs.js';
import { dupListener, listenReusePort, trimHeap } from '../../core/native.js';
import type { WebPlan } from './web.compile.js';
import { addFigures } from './web.figures.js';
import { WebListeners, zeroFigures } from './web.lifecycle.js';
import { listenHost } from './web.listen.js';
import type { AccessLogPage, Serving, ServingEvents } from './web.serving.js';
import { mainStapler } from './web.ocsp.js';
import { listenFailure, WebThreads } from './web.threads.js';

/** How busy the main thread must stay, for how long, before the rules move (samples each second). */
export const BUSY = { utilization: 0.6, seconds: 5 };
/**
 * How little the serving threads together may work, for how long, before the rules move back: a
 * fifth of one thread, a third of what sends them out (the main thread does the same work at a
 * higher cost: its young generation is small), so that a steady load does not move to and fro.
 */
export const QUIET = { utilization: 0.2, seconds: 60 };
/** How long connections may take to finish on the side that gave up serving. */
const DRAIN_MS = 5 * 60_000;

/** Counts samples in a row beyond a limit: true once there were `seconds` of them. */
class Streak {
  private streak = 0;

  constructor(
    private limits: { utilization: number; seconds: number },
    private above: boolean,
  ) {}

  sample(utilization: number): boolean {
    const beyond = this.above ? utilization >= this.limits.utilization : utilization < this.limits.utilization;
    this.streak = beyond ? this.streak + 1 : 0;
    return this.streak >= this.limits.seconds;
  }

  reset(): void {
    this.streak = 0;
  }
}

/** Is the main thread busy, sampled once a second: true after `seconds` busy samples in a row. */
export class BusyWatch {
  private last: EventLoopUtilization = performance.eventLoopUtilization();
  private streak: Streak;

  constructor(limits = BUSY) {
    this.streak = new Streak(limits, true);
  }

  sample(utilization = this.next()): boolean {
    return this.streak.sample(utilization);
  }

  private next(): number {
    const now = performance.eventLoopUtilization();
    const u = performance.eventLoopUtilization(now, this.last).utilization;
    this.last = now;
    return u;
  }
}

/** Are the serving threads nearly idle: true after `seconds` quiet samples (their summed utilization) in a row. */
export class QuietWatch {
  private streak: Streak;

  constructor(limits = QUIET) {
    this.streak = new Streak(limits, false);
  }

  sample(utilization: number): boolean {
    return this.streak.sample(utilization);
  }

  reset(): void {
    this.streak.reset();
  }
}

interface Placed {
  plan: WebPlan;
  events: ServingEvents;
}

/** Figures of a rule where it was served before: those still draining (read live) and those over. */
interface Earlier {
  live: Set<() => WebFigures | Promise<WebFigures>>;
  over: WebFigures;
}

const add = addFigures;

export class AutoServing implements Serving {
  private main: WebListeners;
  private pool: WebThreads | null = null;
  /** Threads whose rules moved back, until their connections have finished. */
  private releasing = new Map<WebThreads, Promise<void>>();
  private placed = new Map<string, Placed>();
  private onThreads = new Set<string>();
  /**
   * Each rule's listening sockets, held here from its start to its stop whoever serves them:
   * the main thread polls all of them, serving thread i the i-th (each through a descriptor of its own).
   */
  private sockets = new Map<string, number[]>();
  private earlier = new Map<string, Earlier>();
  private draining = new Set<Promise<unknown>>();
  private moving: Promise<void> | null = null;
  private quiet: QuietWatch;
  private timer: NodeJS.Timeout;

  constructor(
    private o: {
      /** Threads to move to. */
      threads: number;
      workerFile: string;
      say: Say;
      /** Tests decide when the main thread is busy. */
      watch?: { sample(): boolean };
      /** When the threads are quiet enough to move back (QUIET; tests shorten it). */
      quiet?: { utilization: number; seconds: number };
      /** The main thread's file servers send large bodies by sendfile. */
      nativeFiles?: boolean;
    },
  ) {
    this.main = new WebListeners({ say: o.say, stapling: mainStapler, nativeFiles: o.nativeFiles ?? false });
    this.quiet = new QuietWatch(o.quiet ?? QUIET);
    const watch = o.watch ?? new BusyWatch();
    this.timer = setInterval(() => {
      const busy = watch.sample();
      if (this.moving) return;
      if (!this.pool) {
        if (busy && this.main.connections() > 0) void this.moveToThreads();
      } else if (this.quiet.sample(this.pool.utilization())) void this.moveToMain();
    }, 1000);
    this.timer.unref();
  }

  get threads(): number {
    return this.pool ? this.pool.threads : 1;
  }

  get onMain(): boolean {
    return this.pool === null;
  }

  /** The rules have moved to serving threads (one of them, on one CPU). */
  get moved(): boolean {
    return this.pool !== null;
  }

  /** Serving threads running: those serving and those finishing their connections after a move back. */
  get threadsAlive(): number {
    let n = this.pool?.alive ?? 0;
    for (const pool of this.releasing.keys()) n += pool.alive;
    return n;
  }

  /** Where a rule is served: the threads once it moved (or started after the move), else here. */
  private where(key: string): Serving {
    return this.pool && this.onThreads.has(key) ? this.pool : this.main;
  }

  /** A new descriptor of the rule's socket `slot`, opening the sockets up to it on first use. */
  private socketFor(key: string, plan: WebPlan, slot: number): number {
    const r = plan.rule;
    let fds = this.sockets.get(key);
    if (!fds) this.sockets.set(key, (fds = []));
    while (fds.length <= slot) fds.push(listenReusePort(listenHost(r), r.port, r.network === 'tcp6'));
    return dupListener(fds[slot]!);
  }

  private closeSockets(key: string): void {
    for (const fd of this.sockets.get(key) ?? []) closeSync(fd);
    this.sockets.delete(key);
  }

  private newPool(): WebThreads {
    return new WebThreads({
      threads: this.o.threads,
      workerFile: this.o.workerFile,
      say: this.o.say,
      socket: (key, plan, slot) => this.socketFor(key, plan, slot),
    });
  }

  /** Serves the rule here, on every socket of the rule (one until it first moved to threads). */
  private async openMain(key: string, plan: WebPlan, events: ServingEvents): Promise<Msg[]> {
    const count = Math.max(1, this.sockets.get(key)?.length ?? 0);
    const fds: number[] = [];
    try {
      for (let slot = 0; slot < count; slot++) fds.push(this.socketFor(key, plan, slot));
    } catch (err) {
      for (const fd of fds) closeSync(fd);
      throw listenFailure(plan, err);
    }
    const warnings = await this.main.open(key, plan, events, fds[0]);
    for (let i = 1; i < fds.length; i++) {
      try {
        await this.main.acceptAlso(key, fds[i]!);
      } catch (err) {
        for (const fd of fds.slice(i + 1)) closeSync(fd);
        await this.main.stop(key);
        throw err;
      }
    }
    return warnings;
  }

  private async settled(): Promise<void> {
    while (this.moving) await this.moving;
  }

  async open(key: string, plan: WebPlan, events: ServingEvents): Promise<Msg[]> {
    await this.settled();
    await this.where(key).stop(key);
    // The listener may differ (address, port): its sockets are opened afresh.
    this.closeSockets(key);
    this.onThreads.delete(key);
    let warnings: Msg[];
    try {
      warnings = this.pool ? await this.pool.open(key, plan, events) : await this.openMain(key, plan, events);
    } catch (err) {
      this.placed.delete(key);
      this.closeSockets(key);
      throw err;
    }
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
    this.earlier.delete(key);
    await from.stop(key);
    this.closeSockets(key);
  }

  /** The rule's counters where it no longer accepts, read live until its connections there are over. */
  private keepFigures(key: string, d: { figures(): WebFigures | Promise<WebFigures>; done: Promise<WebFigures> }): Promise<void> {
    let e = this.earlier.get(key);
    if (!e) this.earlier.set(key, (e = { live: new Set(), over: zeroFigures() }));
    const entry = e;
    entry.live.add(d.figures);
    const done = d.done.then((last) => {
      // Moved from live to over in one step, so that a reading counts it once.
      if (!entry.live.delete(d.figures) || this.earlier.get(key) !== entry) return;
      entry.over = add(entry.over, { ...last, connections: 0 });
    });
    this.draining.add(done);
    void done.finally(() => this.draining.delete(done));
    return done;
  }

  /** Every rule to the serving threads, without refusing a connection on the way. */
  moveToThreads(): Promise<void> {
    this.moving ??= (async () => {
      if (this.pool) return;
      const pool = this.newPool();
      this.pool = pool;
      this.quiet.reset();
      pool.utilization();
      for (const [key, p] of this.placed) {
        try {
          await pool.open(key, p.plan, p.events);
        } catch {
          // The threads could not take it: it stays served where it is, the main thread.
          continue;
        }
        this.onThreads.add(key);
        void this.keepFigures(key, this.main.drain(key, DRAIN_MS));
      }
      this.o.say.info({ key: 'webMovedToThreads', vars: { threads: pool.threads, rules: this.placed.size } });
    })().finally(() => {
      this.moving = null;
    });
    return this.moving;
  }

  /**
   * Every rule back to the main thread, without refusing a connection on the way; the threads end
   * once their connections have finished, and the memory they leave in malloc's arenas is given back.
   */
  moveToMain(): Promise<void> {
    this.moving ??= (async () => {
      const pool = this.pool;
      if (!pool) return;
      const drains: Promise<void>[] = [];
      for (const [key, p] of this.placed) {
        if (!this.onThreads.has(key)) continue;
        try {
          await this.openMain(key, p.plan, p.events);
        } catch {
          // The main thread could not take it: it stays on the threads, which stay.
          continue;
        }
        this.onThreads.delete(key);
        drains.push(this.keepFigures(key, pool.drain(key, DRAIN_MS)));
      }
      if (this.onThreads.size > 0) {
        this.quiet.reset();
        return;
      }
      this.pool = null;
      // Ended threads leave what they freed in malloc's arenas (80-130 MB after a burst): given back.
      const release = Promise.all(drains)
        .then(() => pool.close())
        .then(() => void trimHeap())
        .finally(() => this.releasing.delete(pool));
      this.releasing.set(pool, release);
      this.o.say.info({ key: 'webMovedToMain', vars: { threads: pool.threads, rules: drains.length } });
    })().finally(() => {
      this.moving = null;
    });
    return this.moving;
  }

  /** Resolves once the threads of earlier moves back have ended (tests). */
  async released(): Promise<void> {
    while (this.releasing.size > 0) await Promise.all([...this.releasing.values()]);
  }

  async figures(key: string): Promise<WebFigures> {
    // Every source read at once: a drain that ends meanwhile is counted from its reading only.
    const e = this.earlier.get(key);
    const over = e?.over ?? zeroFigures();
    const parts = await Promise.all([this.where(key).figures(key), ...[...(e?.live ?? [])].map((f) => f())]);
    return parts.reduce(add, over);
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
    this.pool = null;
    // Threads still finishing their connections after a move back end now.
    await Promise.all([...this.releasing.keys()].map((pool) => pool.close()));
    await Promise.all([...this.draining]);
    await this.released();
    for (const key of [...this.sockets.keys()]) this.closeSockets(key);
    this.placed.clear();
    this.earlier.clear();
  }
}
