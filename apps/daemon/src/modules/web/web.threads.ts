/**
 * Web rules served by several threads. One Node thread tops out well below one core's worth of
 * proxying on a small machine, so each rule's port is opened once per thread with SO_REUSEPORT (the
 * kernel spreads new connections over the sockets) and every thread serves its socket with its own
 * WebListeners (web.worker.ts). SO_REUSEPORT stays inside the rule's one claim in the port
 * registry: the kit refuses any other rule on that port before this opens anything. This
 * coordinator owns what must exist once: the opening of the sockets (so a port in use is this
 * rule's error), the sum of the threads' figures and access logs, and the OCSP answers of HTTPS
 * rules' certificates (fetched here once, sent to every thread). A thread that dies is replaced and
 * given its rules again. Threads send message keys, never text.
 */
import { closeSync, fstatSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import type { EventLoopUtilization } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { Msg, MsgValue, WebFigures } from '@lucky/contracts';
import { KeyedQueue, listenProblem, RuleProblem } from '../../core/engine.js';
import type { Say } from '../../core/logs.js';
import { ListenError, listenReusePort } from '../../core/native.js';
import { clockAnchor } from '../../core/time.js';
import type { WebPlan } from './web.compile.js';
import { addFigures } from './web.figures.js';
import { fmtAddr } from '../../lib/ip.js';
import { listenHost } from './web.listen.js';
import { ocspStapling, type OcspWatch } from './web.ocsp.js';
import type { AccessLogPage, Serving, ServingEvents } from './web.serving.js';
import { ticketKeys } from './web.tickets.js';
import { webDefender } from './web.defender.js';
import { webPortal } from './web.portal.js';
import type { StartReply, ThreadCall, ThreadEvent } from './web.worker.js';

/**
 * A serving thread exists to be busy: it gets V8's usual young generation (16 MB semi-spaces), not
 * the 1 MB one the whole daemon runs with (nodeoptions.ts), which costs a proxy about 15% of its
 * requests in scavenges and, with a thousand requests in flight, promotes them all to the old
 * generation (a mark-compact every 0.6 s).
 */
const SERVING_HEAP = { maxYoungGenerationSizeMb: 48 };

/**
 * The daemon's --max-semi-space-size is a process-wide V8 flag, and V8 prefers it to a worker's
 * resourceLimits: serving threads kept 1 MB semi-spaces. V8 reads it only when it sizes a new
 * isolate's heap, so clearing it before a thread starts leaves the main thread as it is (sized at
 * start) and lets SERVING_HEAP decide; the serving threads are the daemon's only workers.
 */
let flagCleared = false;
function letWorkersSizeTheirYoungGeneration(): void {
  if (flagCleared) return;
  flagCleared = true;
  setFlagsFromString('--max-semi-space-size=0');
}

type Reply = { resolve: (v: unknown) => void; reject: (e: ThreadFailure) => void };

/** A call a thread could not answer: why, as a message. */
class ThreadFailure extends Error {
  constructor(readonly msg: Msg) {
    super(msg.key);
  }
}

const EXITED: Msg = { key: 'webThreadExited' };

type DistributiveOmit<T, K extends keyof never> = T extends unknown ? Omit<T, K> : never;

/** One serving thread and its calls in flight. */
class ServingThread {
  readonly worker: Worker;
  private calls = new Map<number, Reply>();
  private nextId = 1;
  connections = 0;
  exited = false;
  /** The rules this thread serves (it holds a listening socket for each). */
  readonly keys = new Set<string>();
  readonly born = Date.now();
  /** The event-loop utilization read last (utilization()). */
  elu: EventLoopUtilization | null = null;

  constructor(file: string, threads: number, onEvent: (e: ThreadEvent, from: ServingThread) => void, onExit: (why: MsgValue) => void) {
    letWorkersSizeTheirYoungGeneration();
    this.worker = new Worker(file, { name: 'lucky-web', workerData: { threads, clockAnchor, ticketKey: ticketKeys.current(), locks: webDefender.locks() }, resourceLimits: SERVING_HEAP });
    this.worker.on('message', (e: ThreadEvent) => {
      if (e.op === 'reply') {
        const c = this.calls.get(e.id);
        this.calls.delete(e.id);
        if (e.error !== undefined) c?.reject(new ThreadFailure(e.error));
        else c?.resolve(e.value);
      } else if (e.op === 'connections') this.connections = e.n;
      else onEvent(e, this);
    });
    let why = '';
    this.worker.on('error', (err) => (why = err.message));
    this.worker.on('exit', (code) => {
      this.exited = true;
      this.connections = 0;
      for (const c of this.calls.values()) c.reject(new ThreadFailure(EXITED));
      this.calls.clear();
      onExit(why || { key: 'webThreadExitCode', vars: { code } });
    });
  }

  call<T>(m: DistributiveOmit<ThreadCall, 'id'>): Promise<T> {
    if (this.exited) return Promise.reject(new ThreadFailure(EXITED));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.calls.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ ...m, id });
    });
  }
}

interface Placed {
  plan: WebPlan;
  events: ServingEvents;
  ocsp?: OcspWatch;
}

/** Why a rule's SO_REUSEPORT socket could not be opened, as its status says it. */
export function listenFailure(plan: WebPlan, err: unknown): RuleProblem {
  const r = plan.rule;
  const detail = String((err as Error)?.message ?? err);
  return new RuleProblem(listenProblem(fmtAddr(listenHost(r), r.port), r.port, err instanceof ListenError ? err.code : undefined, detail));
}

export class WebThreads implements Serving {
  readonly threads: number;
  readonly onMain = false;
  private pool: ServingThread[] = [];
  /** Rules serving now, by key. */
  private placed = new Map<string, Placed>();
  private queue = new KeyedQueue();
  /** The last line each rule logged, so that N threads reporting one event log it once. */
  private lastNote = new Map<string, { line: string; at: number }>();
  private closing = false;
  private respawnDelay = 0;
  /** Inodes of the sockets opened, by descriptor, until a thread has certainly taken them. */
  private opened = new Map<number, number>();
  /** Stops passing new ticket keys to the threads. */
  private tickets: (() => void) | null = null;
  private locks: (() => void) | null = null;
  private portal: (() => void) | null = null;

  constructor(
    private o: {
      threads: number;
      workerFile: string;
      say: Say;
      /**
       * The listening socket for the rule on the thread in `slot` (0 to threads - 1), which the
       * thread then owns; without it, each thread gets a socket of its own (SO_REUSEPORT). Given,
       * a thread that replaces a dead one polls the same socket as the dead one did.
       */
      socket?: (key: string, plan: WebPlan, slot: number) => number;
    },
  ) {
    this.threads = o.threads;
  }

  private ensureThreads(): void {
    if (this.pool.length) return;
    // Every thread seals with the one key of the process, replaced on the main thread's clock.
    this.tickets ??= ticketKeys.subscribe((key) => {
      for (const t of this.live()) t.call({ op: 'ticketKeys', key }).catch(() => undefined);
    });
    // Every thread refuses the addresses the defender locked, whoever made the failures.
    this.locks ??= webDefender.subscribe((list) => {
      for (const t of this.live()) t.call({ op: 'locks', list }).catch(() => undefined);
    });
    // A revoked portal session is refused at once by every thread, not when its kept answer runs out.
    this.portal ??= webPortal.subscribe(() => {
      for (const t of this.live()) t.call({ op: 'portalForget' }).catch(() => undefined);
    });
    for (let i = 0; i < this.threads; i++) this.pool.push(this.spawn(i));
  }

  private spawn(slot: number): ServingThread {
    return new ServingThread(
      this.o.workerFile,
      this.threads,
      (e, t) => this.onEvent(e, t),
      (why) => this.onExit(slot, why),
    );
  }

  private onEvent(e: ThreadEvent, from: ServingThread): void {
    if (e.op === 'note') {
      const text = JSON.stringify(e.line);
      const last = this.lastNote.get(e.key);
      const now = Date.now();
      if (last && last.line === text && now - last.at < 2000) return;
      this.lastNote.set(e.key, { line: text, at: now });
      this.placed.get(e.key)?.events.note(e.line);
    } else if (e.op === 'say') {
      this.o.say[e.level](e.line, e.extra);
    } else if (e.op === 'loginFailed') {
      webDefender.failed(e.ip);
    } else if (e.op === 'portal') {
      void webPortal.answer(e.q).then((value) => from.call({ op: 'portalAnswer', ask: e.ask, value }).catch(() => undefined));
    }
  }

  /** A thread died (a fault in it, not in a rule's settings): replace it and give it every rule. */
  private onExit(slot: number, why: MsgValue): void {
    const dead = this.pool[slot];
    if (this.closing || dead?.exited !== true) return;
    // One that dies young is replaced after a growing pause, so a thread that cannot run does not spin.
    const young = Date.now() - dead.born < 5000;
    this.respawnDelay = young ? Math.min(30_000, this.respawnDelay * 2 || 500) : 0;
    this.o.say.error({ key: 'webThreadStopped', vars: { why, ms: this.respawnDelay } });
    const timer = setTimeout(() => {
      if (this.closing || this.pool[slot] !== dead) return;
      const fresh = this.spawn(slot);
      this.pool[slot] = fresh;
      for (const [key, p] of this.placed) {
        void this.queue.run(key, async () => {
          if (this.placed.get(key) !== p || this.pool[slot] !== fresh) return;
          try {
            const reply = await this.startOn(fresh, key, p.plan, this.openSocket(key, p.plan, slot));
            if (reply.problem) throw new ThreadFailure(reply.problem);
            this.sendStaples(key);
          } catch (err) {
            const detail = err instanceof ThreadFailure ? err.msg : String((err as Error)?.message ?? err);
            this.o.say.warn({ key: 'webThreadRuleLost', vars: { detail } }, { rule: key });
          }
        });
      }
    }, this.respawnDelay);
    timer.unref();
  }

  private openSocket(key: string, plan: WebPlan, slot: number): number {
    const r = plan.rule;
    const fd = this.o.socket ? this.o.socket(key, plan, slot) : listenReusePort(listenHost(r), r.port, r.network === 'tcp6');
    this.opened.set(fd, fstatSync(fd).ino);
    return fd;
  }

  /**
   * A thread died while being handed `fd`. Whether it had taken the socket (and closed it on its
   * way out, the number perhaps reused since) shows in the inode: close only what is still ours, so
   * that no orphan socket keeps taking a share of the port's connections.
   */
  private reclaim(fd: number): void {
    const ino = this.opened.get(fd);
    this.opened.delete(fd);
    try {
      if (ino !== undefined && fstatSync(fd).ino === ino) closeSync(fd);
    } catch {
      /* closed with the thread */
    }
  }

  /** Threads running now (a dead one is replaced after a pause; close() ends them all). */
  get alive(): number {
    return this.live().length;
  }

  private live(): ServingThread[] {
    return this.pool.filter((t) => !t.exited);
  }

  /** One listening socket per thread; a RuleProblem when the port cannot be opened. */
  private openAll(key: string, plan: WebPlan, threads: ServingThread[]): number[] {
    const fds: number[] = [];
    try {
      for (const t of threads) fds.push(this.openSocket(key, plan, this.pool.indexOf(t)));
      return fds;
    } catch (err) {
      for (const fd of fds) {
        this.opened.delete(fd);
        closeSync(fd);
      }
      throw listenFailure(plan, err);
    }
  }

  /** Runs `fn` after the rule's earlier calls; its failure reaches the caller, never the queue. */
  private serial<T>(key: string, fn: () => Promise<T>): Promise<T> {
    let out: { ok: true; value: T } | { ok: false; err: unknown } = { ok: false, err: new Error('not run') };
    return this.queue
      .run(key, async () => {
        try {
          out = { ok: true, value: await fn() };
        } catch (err) {
          out = { ok: false, err };
        }
      })
      .then(() => {
        if (out.ok) return out.value;
        throw out.err;
      });
  }

  open(key: string, plan: WebPlan, events: ServingEvents): Promise<Msg[]> {
    return this.serial(key, async () => {
      this.ensureThreads();
      if (this.placed.has(key)) {
        this.placed.get(key)?.ocsp?.close();
        await this.stopThreads(key);
      }
      const threads = this.live();
      const fds = this.openAll(key, plan, threads);
      // Placed before the threads start, so that their first lines reach the rule's log.
      const p: Placed = { plan, events };
      this.placed.set(key, p);
      const replies = await this.everyThread(threads, (t, i) => this.startOn(t, key, plan, fds[i]!));
      const warnings = await this.settle(key, replies);
      this.watchOcsp(key, p);
      return warnings;
    });
  }

  apply(key: string, plan: WebPlan): Promise<Msg[]> {
    return this.serial(key, async () => {
      const p = this.placed.get(key);
      if (!p) throw new Error(`web rule ${key} is not served`);
      // Every thread swaps what it serves; connections carry on. A thread that came in since
      // (replacing one that died) and missed the rule gets its socket.
      const replies = await this.everyThread(this.live(), (t) =>
        t.keys.has(key) ? t.call<StartReply>({ op: 'apply', key, plan }) : this.startOn(t, key, plan, this.openSocket(key, plan, this.pool.indexOf(t))),
      );
      p.plan = plan;
      const warnings = await this.settle(key, replies);
      this.watchOcsp(key, p, p.ocsp);
      return warnings;
    });
  }

  /** The rule's OCSP answers, fetched on this thread and sent to its threads whenever they change. */
  private watchOcsp(key: string, p: Placed, previous?: OcspWatch): void {
    p.ocsp = p.plan.rule.protocol === 'https' ? ocspStapling().watch(p.plan.certs, { staple: () => this.sendStaples(key), note: p.events.note }, previous) : undefined;
    previous?.close();
    this.sendStaples(key);
  }

  private sendStaples(key: string): void {
    const p = this.placed.get(key);
    if (!p?.ocsp) return;
    const stapled = p.ocsp.stapled();
    for (const t of this.live()) if (t.keys.has(key)) t.call({ op: 'ocsp', key, stapled }).catch(() => undefined);
  }

  /** What the threads answered: the first problem is the rule's (and nothing of it keeps serving). */
  private async settle(key: string, replies: StartReply[]): Promise<Msg[]> {
    const bad = replies.find((r) => r.problem);
    if (bad?.problem) {
      this.placed.get(key)?.ocsp?.close();
      this.placed.delete(key);
      await this.stopThreads(key);
      throw new RuleProblem(bad.problem, bad.retry);
    }
    return replies[0]?.warnings ?? [];
  }

  /** Starts the rule on one thread, which owns `fd` from here on. */
  private async startOn(t: ServingThread, key: string, plan: WebPlan, fd: number): Promise<StartReply> {
    let reply: StartReply;
    try {
      reply = await t.call<StartReply>({ op: 'start', key, plan, fd });
    } catch (err) {
      if (t.exited) this.reclaim(fd);
      throw err;
    }
    this.opened.delete(fd);
    if (reply.problem) t.keys.delete(key);
    else t.keys.add(key);
    return reply;
  }

  /** Runs a call on each of `threads`; one that fails is answered as a problem. */
  private everyThread(threads: ServingThread[], fn: (t: ServingThread, i: number) => Promise<StartReply>): Promise<StartReply[]> {
    return Promise.all(
      threads.map((t, i) =>
        Promise.resolve()
          .then(() => fn(t, i))
          .catch((err: unknown): StartReply => {
            if (err instanceof RuleProblem) return { problem: err.part, retry: err.retry, warnings: [] };
            const problem = err instanceof ThreadFailure ? err.msg : { key: 'statusApplyFailed' as const, vars: { detail: String((err as Error)?.message ?? err) } };
            return { problem, retry: true, warnings: [] };
          }),
      ),
    );
  }

  private async stopThreads(key: string): Promise<void> {
    await Promise.all(
      this.pool.map((t) => {
        t.keys.delete(key);
        return t.call({ op: 'stop', key }).catch(() => undefined);
      }),
    );
  }

  stop(key: string): Promise<void> {
    return this.serial(key, async () => {
      this.placed.get(key)?.ocsp?.close();
      this.placed.delete(key);
      this.lastNote.delete(key);
      await this.stopThreads(key);
    });
  }

  /**
   * Stops accepting the rule's connections on every thread while they finish (WebListeners.drain),
   * for another thread that polls the same listening sockets (the `socket` option) to serve it.
   * `figures` reads the rule's counters on the threads meanwhile; `done` gives the last ones.
   */
  drain(key: string, graceMs: number): { figures(): Promise<WebFigures>; done: Promise<WebFigures> } {
    let threads: ServingThread[] = [];
    const started = this.serial(key, async () => {
      this.placed.delete(key);
      this.lastNote.delete(key);
      threads = this.live().filter((t) => t.keys.has(key));
      for (const t of threads) t.keys.delete(key);
      return threads.map((t) => t.call<WebFigures>({ op: 'drain', key, graceMs }).catch(() => null));
    });
    return {
      figures: async () => {
        await started;
        return this.sum(key, threads);
      },
      done: started.then(async (calls) => sumFigures(await Promise.all(calls))),
    };
  }

  /**
   * How busy the threads have been since the last call, summed: 1 is one thread's worth of work
   * (its event loop never idle).
   */
  utilization(): number {
    let sum = 0;
    for (const t of this.live()) {
      const now = t.worker.performance.eventLoopUtilization();
      sum += t.elu ? t.worker.performance.eventLoopUtilization(now, t.elu).utilization : now.utilization;
      t.elu = now;
    }
    return sum;
  }

  async figures(key: string): Promise<WebFigures> {
    if (!this.placed.has(key)) return sumFigures([]);
    return this.sum(key, this.pool);
  }

  private async sum(key: string, threads: ServingThread[]): Promise<WebFigures> {
    return sumFigures(await Promise.all(threads.map((t) => t.call<WebFigures>({ op: 'figures', key }).catch(() => null))));
  }

  /** The latest entries of all threads together, oldest first, as one thread's log would give. */
  async accessLog(key: string, limit: number): Promise<AccessLogPage> {
    const p = this.placed.get(key);
    if (!p) return { list: [], total: 0 };
    const all = await Promise.all(this.pool.map((t) => t.call<AccessLogPage>({ op: 'accessLog', key, limit }).catch(() => null)));
    const list = all.flatMap((a) => a?.list ?? []).sort((a, b) => a.time - b.time);
    const total = Math.min(
      all.reduce((n, a) => n + (a?.total ?? 0), 0),
      p.plan.rule.accessLog.capacity,
    );
    // Each thread keeps up to the capacity; together they keep no more than one would.
    return { list: list.slice(Math.max(0, list.length - Math.min(limit, total))), total };
  }

  connections(): number {
    return this.pool.reduce((n, t) => n + t.connections, 0);
  }

  async close(): Promise<void> {
    await Promise.all([...this.placed.keys()].map((k) => this.stop(k)));
    this.closing = true;
    this.tickets?.();
    this.tickets = null;
    this.locks?.();
    this.locks = null;
    this.portal?.();
    this.portal = null;
    const threads = this.pool;
    this.pool = [];
    await Promise.all(
      threads.map(async (t) => {
        await t.call({ op: 'close' }).catch(() => undefined);
        await t.worker.terminate();
      }),
    );
    this.closing = false;
  }
}

function sumFigures(all: (WebFigures | null)[]): WebFigures {
  return all.reduce<WebFigures>((sum, f) => (f ? addFigures(sum, f) : sum), { requests: 0, bytesIn: 0, bytesOut: 0, connections: 0, codes: {} });
}
