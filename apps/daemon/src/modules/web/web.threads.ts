/**
 * The web engine over several serving threads. One Node thread tops out well below one core's worth
 * of proxying on a small machine, so each rule's port is opened once per thread with SO_REUSEPORT
 * (the kernel spreads new connections over the sockets) and every thread serves its socket with its
 * own WebEngine (web.worker.ts). This coordinator owns what must exist once: the listeners' opening
 * (so a port in use is this rule's error), the firewall, the rule status and log lines, and sums
 * the threads' figures and access logs. A thread that dies is replaced and given its rules again.
 *
 * Used when the native addon (for SO_REUSEPORT) and the built worker are present and the machine has
 * more than one CPU; otherwise createWebEngine gives the single-thread WebEngine.
 */
import { closeSync, existsSync, fstatSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { RuleStatus, WebAccessEntry, WebFigures, WebRule } from '@lucky/contracts';
import { KeyedQueue, listenProblem, statusOf, statusText, type EngineStatus, type RuleEngine, type StatusPart } from '../../core/engine.js';
import { clockAnchor, formatTime } from '../../core/time.js';
import { ListenError, listenReusePort, nativeAddon } from '../../core/native.js';
import { fmtAddr, listenIdOf, runningParts, WebEngine, type WebEngineOptions } from './web.engine.js';
import { applyFirewall, firewallPart, type Firewall } from './web.firewall.js';
import type { StartReply, ThreadCall, ThreadEvent } from './web.worker.js';

/** The length of formatTime's stamp that starts every rule log line. */
const STAMP = formatTime(0).length;

/** The built worker, from src/modules/web or dist/modules/web alike. */
const WORKER = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'dist', 'modules', 'web', 'web.worker.js');

/** What both engines offer the module (figures and logs may come from other threads). */
export type WebRuleEngine = RuleEngine<WebRule> & {
  firewallNote(key: string): StatusPart | null;
  figures(key: string): WebFigures | Promise<WebFigures>;
  accessLog(key: string, limit: number): { list: WebAccessEntry[]; total: number } | Promise<{ list: WebAccessEntry[]; total: number }>;
  connections(): number;
};

/**
 * How many threads serve: the module setting when it names a count, else LUCKY_WEB_THREADS when
 * set, else one per CPU up to 4. 0 or 1 serves on the main thread.
 */
export function webThreadCount(setting = 0): number {
  if (setting > 0) return setting;
  const env = process.env.LUCKY_WEB_THREADS;
  if (env !== undefined && env !== '') return Math.max(0, Math.min(64, Math.floor(Number(env)) || 0));
  return Math.min(availableParallelism(), 4);
}

export function createWebEngine(opts: WebEngineOptions & { firewall: Firewall; threads?: number; workerFile?: string }): WebRuleEngine {
  const threads = opts.threads ?? webThreadCount();
  const workerFile = opts.workerFile ?? WORKER;
  if (threads >= 2 && nativeAddon() && existsSync(workerFile)) return new WebThreads({ ...opts, threads, workerFile });
  return new WebEngine(opts);
}

type Reply = { resolve: (v: unknown) => void; reject: (e: Error) => void };

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

  constructor(file: string, threads: number, onEvent: (e: ThreadEvent) => void, onExit: (why: string) => void) {
    this.worker = new Worker(file, { name: 'lucky-web', workerData: { threads, clockAnchor } });
    this.worker.on('message', (e: ThreadEvent) => {
      if (e.op === 'reply') {
        const c = this.calls.get(e.id);
        this.calls.delete(e.id);
        if (e.error !== undefined) c?.reject(new Error(e.error));
        else c?.resolve(e.value);
      } else if (e.op === 'connections') this.connections = e.n;
      else onEvent(e);
    });
    let why = '';
    this.worker.on('error', (err) => (why = err.message));
    this.worker.on('exit', (code) => {
      this.exited = true;
      this.connections = 0;
      for (const c of this.calls.values()) c.reject(new Error('web serving thread exited'));
      this.calls.clear();
      onExit(why || `exit code ${code}`);
    });
  }

  call<T>(m: DistributiveOmit<ThreadCall, 'id'>): Promise<T> {
    if (this.exited) return Promise.reject(new Error('web serving thread exited'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.calls.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ ...m, id });
    });
  }
}

type DistributiveOmit<T, K extends keyof never> = T extends unknown ? Omit<T, K> : never;

interface Placed {
  rule: WebRule;
  listenId: string;
  address: string;
}

export class WebThreads implements WebRuleEngine {
  private threads: ServingThread[] = [];
  /** Rules serving now, by key. */
  private placed = new Map<string, Placed>();
  private states = new Map<string, { status: EngineStatus; firewall: StatusPart | null }>();
  private queue = new KeyedQueue();
  /** The last line each rule logged, so that N threads reporting one event log it once. */
  private lastNote = new Map<string, { line: string; at: number }>();
  private closing = false;
  private respawnDelay = 0;

  constructor(private opts: WebEngineOptions & { firewall: Firewall; threads: number; workerFile: string }) {}

  private ensureThreads(): void {
    if (this.threads.length) return;
    for (let i = 0; i < this.opts.threads; i++) this.threads.push(this.spawn(i));
  }

  private spawn(slot: number): ServingThread {
    return new ServingThread(
      this.opts.workerFile,
      this.opts.threads,
      (e) => this.onEvent(e),
      (why) => this.onExit(slot, why),
    );
  }

  private onEvent(e: ThreadEvent): void {
    if (e.op === 'note') {
      const body = e.line.slice(STAMP + 1); // without the time stamp
      const last = this.lastNote.get(e.key);
      const now = Date.now();
      if (last && last.line === body && now - last.at < 2000) return;
      this.lastNote.set(e.key, { line: body, at: now });
      this.opts.logs.add(e.key, e.line);
    } else if (e.op === 'log') {
      this.opts.log[e.level](e.fields, e.msg);
    }
  }

  /** A thread died (a fault in it, not in a rule's settings): replace it and give it every rule. */
  private onExit(slot: number, why: string): void {
    const dead = this.threads[slot];
    if (this.closing || dead?.exited !== true) return;
    // One that dies young is replaced after a growing pause, so a thread that cannot run does not spin.
    const young = Date.now() - dead.born < 5000;
    this.respawnDelay = young ? Math.min(30_000, this.respawnDelay * 2 || 500) : 0;
    this.opts.log.error({ why, inMs: this.respawnDelay }, 'web serving thread stopped; starting another');
    const timer = setTimeout(() => {
      if (this.closing || this.threads[slot] !== dead) return;
      const fresh = this.spawn(slot);
      this.threads[slot] = fresh;
      for (const [key, p] of this.placed) {
        void this.serial(key, async () => {
          if (this.placed.get(key) !== p || this.threads[slot] !== fresh) return;
          try {
            await this.startOn(fresh, key, p.rule, this.open(p.rule));
          } catch (err) {
            this.opts.log.warn({ key, err: String(err) }, 'web rule not restored on a new serving thread');
          }
        });
      }
    }, this.respawnDelay);
    timer.unref();
  }

  private note(key: string, line: string): void {
    this.lastNote.set(key, { line, at: Date.now() });
    this.opts.logs.add(key, `${formatTime(Date.now())} ${line}`);
  }

  private serial(key: string, fn: () => Promise<void>): Promise<void> {
    return this.queue.run(key, fn);
  }


  private setState(key: string, state: RuleStatus['state'], parts: StatusPart[], firewall: StatusPart | null): void {
    this.states.set(key, { status: statusOf(state, Date.now(), parts), firewall });
  }

  private host(rule: WebRule): string {
    return rule.address || (rule.network === 'tcp6' ? '::' : '0.0.0.0');
  }

  /** Inodes of the sockets opened, by descriptor, until a thread has certainly taken them. */
  private opened = new Map<number, number>();

  private open(rule: WebRule): number {
    const fd = listenReusePort(this.host(rule), rule.port, rule.network === 'tcp6');
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

  private live(): ServingThread[] {
    return this.threads.filter((t) => !t.exited);
  }

  /** One listening socket per live thread, or the error of the first that could not be opened. */
  private openAll(rule: WebRule, count: number): number[] {
    const fds: number[] = [];
    try {
      for (let i = 0; i < count; i++) fds.push(this.open(rule));
      return fds;
    } catch (err) {
      for (const fd of fds) {
        this.opened.delete(fd);
        closeSync(fd);
      }
      throw err;
    }
  }

  start(key: string, rule: WebRule): Promise<void> {
    return this.serial(key, () => this.doStart(key, rule));
  }

  private async doStart(key: string, rule: WebRule): Promise<void> {
    this.ensureThreads();
    const prev = this.placed.get(key);
    const listenId = listenIdOf(rule);
    const host = this.host(rule);
    const address = fmtAddr(host, rule.port);
    const threads = this.live();
    let replies: StartReply[];
    if (prev && prev.listenId === listenId) {
      // Same listener: every thread swaps what it serves; connections carry on. A thread that came
      // in since (replacing one that died) and missed the rule gets a socket of its own.
      replies = await this.everyThread(threads, (t) => this.startOn(t, key, rule, t.keys.has(key) ? undefined : this.open(rule)));
    } else {
      let fds: number[];
      try {
        fds = this.openAll(rule, threads.length);
      } catch (err) {
        if (err instanceof ListenError && err.code === 'EADDRINUSE' && prev) {
          // Most likely the rule's own listener on the same port: let it go and try again.
          await this.stopThreads(key);
          this.placed.delete(key);
          try {
            fds = this.openAll(rule, threads.length);
          } catch (again) {
            return this.failed(key, rule, again, host);
          }
        } else {
          if (prev) {
            await this.stopThreads(key);
            this.placed.delete(key);
          }
          return this.failed(key, rule, err, host);
        }
      }
      replies = await this.everyThread(threads, (t, i) => this.startOn(t, key, rule, fds[i]));
    }
    const bad = replies.find((r) => r.state !== 'running');
    if (bad) {
      await this.stopThreads(key);
      this.placed.delete(key);
      return this.fail(key, rule, bad.parts, 'cannot start');
    }
    const warnings = replies[0]?.warnings ?? [];
    const warn = statusText(warnings, 'en_US');
    const same = prev?.listenId === listenId;
    this.placed.set(key, { rule, listenId, address });
    if (same) this.note(key, `applied new settings on ${address}${warn ? ` (${warn})` : ''}`);
    else {
      this.note(key, `listening on ${rule.protocol}://${address}${warn ? ` (${warn})` : ''} in ${this.threads.length} threads`);
      this.opts.log.info({ key, name: rule.name }, `web rule listening on ${rule.protocol}://${address}`);
    }
    const fw = await applyFirewall(this.opts.firewall, key, rule);
    if (fw && !same) this.note(key, statusText([firewallPart(fw)], 'en_US'));
    this.setState(key, 'running', runningParts(address, warnings, fw), fw);
  }

  private failed(key: string, rule: WebRule, err: unknown, host: string): Promise<void> {
    const detail = String((err as Error)?.message ?? err);
    const part = listenProblem(fmtAddr(host, rule.port), rule.port, err instanceof ListenError ? err.code : undefined, detail);
    return this.fail(key, rule, [part], 'cannot listen');
  }

  /** The rule's error: its status, a rule log line, a program log line; the firewall closed. */
  private async fail(key: string, rule: WebRule, parts: StatusPart[], what: string): Promise<void> {
    const msg = statusText(parts, 'en_US');
    this.note(key, what === 'cannot listen' ? msg : `${what}: ${msg}`);
    this.opts.log.warn({ key, name: rule.name }, `web rule ${what}: ${msg}`);
    await this.opts.firewall.close(key);
    this.setState(key, 'error', parts, null);
  }

  /** Starts (or re-applies) the rule on one thread, which owns `fd` from here on. */
  private async startOn(t: ServingThread, key: string, rule: WebRule, fd: number | undefined): Promise<StartReply> {
    let reply: StartReply;
    try {
      reply = await t.call<StartReply>({ op: 'start', key, rule, fd });
    } catch (err) {
      if (fd !== undefined && t.exited) this.reclaim(fd);
      throw err;
    }
    if (fd !== undefined) this.opened.delete(fd);
    if (reply.state === 'running') t.keys.add(key);
    else t.keys.delete(key);
    return reply;
  }

  /** Runs a start on each of `threads`; one that fails is reported as an error reply. */
  private async everyThread(threads: ServingThread[], fn: (t: ServingThread, i: number) => Promise<StartReply>): Promise<StartReply[]> {
    return Promise.all(
      threads.map((t, i) =>
        Promise.resolve()
          .then(() => fn(t, i))
          .catch((err: Error): StartReply => ({ state: 'error', parts: [{ key: 'statusApplyFailed', vars: { detail: err.message } }], warnings: [] })),
      ),
    );
  }

  private async stopThreads(key: string): Promise<void> {
    await Promise.all(
      this.threads.map((t) => {
        t.keys.delete(key);
        return t.call({ op: 'stop', key }).catch(() => undefined);
      }),
    );
  }

  stop(key: string): Promise<void> {
    return this.serial(key, async () => {
      const p = this.placed.get(key);
      this.placed.delete(key);
      this.states.delete(key);
      await this.opts.firewall.close(key);
      await this.stopThreads(key);
      if (p) this.note(key, `stopped listening on ${p.address}`);
    });
  }

  status(key: string): EngineStatus {
    return this.states.get(key)?.status ?? { state: 'stopped', message: '', since: Date.now() };
  }

  firewallNote(key: string): StatusPart | null {
    return this.states.get(key)?.firewall ?? null;
  }

  async figures(key: string): Promise<WebFigures> {
    const sum: WebFigures = { requests: 0, bytesIn: 0, bytesOut: 0, connections: 0, codes: {} };
    if (!this.placed.has(key)) return sum;
    const all = await Promise.all(this.threads.map((t) => t.call<WebFigures>({ op: 'figures', key }).catch(() => null)));
    for (const f of all) {
      if (!f) continue;
      sum.requests += f.requests;
      sum.bytesIn += f.bytesIn;
      sum.bytesOut += f.bytesOut;
      sum.connections += f.connections;
      for (const [code, n] of Object.entries(f.codes)) sum.codes[code] = (sum.codes[code] ?? 0) + n;
    }
    return sum;
  }

  /** The latest entries of all threads together, oldest first, as one thread's log would give. */
  async accessLog(key: string, limit: number): Promise<{ list: WebAccessEntry[]; total: number }> {
    const p = this.placed.get(key);
    if (!p) return { list: [], total: 0 };
    const all = await Promise.all(this.threads.map((t) => t.call<{ list: WebAccessEntry[]; total: number }>({ op: 'accessLog', key, limit }).catch(() => null)));
    const list = all.flatMap((a) => a?.list ?? []).sort((a, b) => a.time - b.time);
    const total = Math.min(
      all.reduce((n, a) => n + (a?.total ?? 0), 0),
      p.rule.accessLog.capacity,
    );
    // Each thread keeps up to the capacity; together they keep no more than one would.
    return { list: list.slice(Math.max(0, list.length - Math.min(limit, total))), total };
  }

  connections(): number {
    return this.threads.reduce((n, t) => n + t.connections, 0);
  }

  async close(): Promise<void> {
    await Promise.all([...this.placed.keys()].map((k) => this.stop(k)));
    this.closing = true;
    const threads = this.threads;
    this.threads = [];
    await Promise.all(
      threads.map(async (t) => {
        await t.call({ op: 'close' }).catch(() => undefined);
        await t.worker.terminate();
      }),
    );
    this.closing = false;
  }
}
