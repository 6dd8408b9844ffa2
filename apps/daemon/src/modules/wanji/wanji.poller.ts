/**
 * The background poll of every device: each device is due `interval` seconds after its last poll
 * ended, at most `concurrency` polls run at once, and each poll ends after `timeout` seconds
 * whatever the device does. A device that does not answer holds one slot for that long and nothing
 * else: the others go on, and the list reads the last state from memory without waiting.
 */
import { emptyDeviceState, type Msg, type WanjiConfigure, type WanjiDevice, type WanjiDeviceState } from '@lucky/contracts';
import type { RuleContext } from '../../core/engine.js';
import type { HttpClients } from '../../lib/http/clients.js';
import { MsgError } from '../../lib/msgerror.js';
import { pollDevice } from './wanji.poll.js';
import { remoteFailure, remoteOf } from './wanji.remote.js';

/** The state as the engine keeps it: the error as a message, rendered when read. */
export type DeviceFigures = Omit<WanjiDeviceState, 'error'> & { error: Msg | null };

/** Samples kept for the list's small graphs. */
export const HISTORY = 30;

export const emptyFigures = (): DeviceFigures => ({ ...emptyDeviceState(), error: null });

interface Entry {
  key: string;
  device: WanjiDevice;
  ctx: RuleContext<WanjiConfigure>;
  figures: DeviceFigures;
  /** When the next poll is due (ms since the epoch). */
  due: number;
  busy: boolean;
  /** Called when the poll running (or the next one) ends. */
  waiters: Array<() => void>;
}

const push = (list: number[], v: number) => {
  list.push(v);
  if (list.length > HISTORY) list.splice(0, list.length - HISTORY);
};

/** What a change of these fields means: another device, or another token, to be asked anew. */
const LINK_FIELDS = ['url', 'token', 'pin', 'ca'] as const;

export class Poller {
  private entries = new Map<string, Entry>();
  private active = 0;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Polls done since the engine started, and the most that ran at once: for the benchmark and tests. */
  polls = 0;
  peak = 0;

  constructor(
    private clients: HttpClients,
    private settings: () => WanjiConfigure,
  ) {}

  add(key: string, device: WanjiDevice, ctx: RuleContext<WanjiConfigure>): void {
    this.entries.set(key, { key, device, ctx, figures: emptyFigures(), due: 0, busy: false, waiters: [] });
    this.pump();
  }

  /** An edited device, applied in place; another address or token starts its state over. */
  update(key: string, device: WanjiDevice): void {
    const e = this.entries.get(key);
    if (!e) return;
    const relink = LINK_FIELDS.some((f) => e.device[f] !== device[f]);
    e.device = device;
    if (relink) {
      e.figures = emptyFigures();
      e.due = 0;
      this.pump();
    }
  }

  remove(key: string): void {
    const e = this.entries.get(key);
    this.entries.delete(key);
    e?.waiters.splice(0).forEach((w) => w());
    this.arm();
  }

  figures(key: string): DeviceFigures | undefined {
    return this.entries.get(key)?.figures;
  }

  keys(): string[] {
    return [...this.entries.keys()];
  }

  /** Polls the devices (all when none named) now; resolves when each has been polled once more. */
  pollNow(keys?: readonly string[]): Promise<void> {
    const list = (keys ? keys.map((k) => this.entries.get(k)) : [...this.entries.values()]).filter((e): e is Entry => !!e);
    const done = list.map((e) => {
      if (!e.busy) e.due = 0;
      return new Promise<void>((resolve) => e.waiters.push(resolve));
    });
    this.pump();
    return Promise.all(done).then(() => undefined);
  }

  /** New settings: a shorter interval or more slots apply at once. */
  configure(): void {
    this.pump();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const e of this.entries.values()) e.waiters.splice(0).forEach((w) => w());
    this.entries.clear();
  }

  private pump(): void {
    if (this.closed) return;
    const now = Date.now();
    const slots = this.settings().concurrency;
    while (this.active < slots) {
      let next: Entry | undefined;
      for (const e of this.entries.values()) if (!e.busy && e.due <= now && (!next || e.due < next.due)) next = e;
      if (!next) break;
      void this.run(next);
    }
    this.arm();
  }

  /** The timer to the next due poll (a completion pumps on its own while every slot is busy). */
  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.closed) return;
    let first = Infinity;
    for (const e of this.entries.values()) if (!e.busy) first = Math.min(first, e.due);
    if (first === Infinity) return;
    this.timer = setTimeout(() => this.pump(), Math.max(0, first - Date.now()) + 5);
    this.timer.unref();
  }

  private async run(e: Entry): Promise<void> {
    this.active++;
    this.peak = Math.max(this.peak, this.active);
    e.busy = true;
    const device = e.device;
    const s = this.settings();
    const t0 = Date.now();
    // One deadline for the whole poll, whatever the device does.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new MsgError({ key: 'httpTimeout', vars: { seconds: s.timeout, url: device.url } })), s.timeout * 1000);
    try {
      const remote = remoteOf(this.clients, device, { timeoutMs: s.timeout * 1000, lang: 'en_US', signal: deadline.signal });
      const facts = await pollDevice(remote, { expiryDays: s.expiryDays, scope: e.figures.scope });
      if (this.entries.get(e.key) !== e || e.device !== device) return;
      const latency = Date.now() - t0;
      const was = e.figures.online;
      const f = e.figures;
      Object.assign(f, facts, { online: 'online', lastSeen: Date.now(), lastPoll: Date.now(), error: null, latency });
      push(f.history.cpu, facts.cpu);
      push(f.history.memory, facts.memory);
      push(f.history.latency, latency);
      if (was !== 'online') e.ctx.note({ key: 'wanjiCameOnline', vars: { hostname: facts.hostname, version: facts.version } });
      e.ctx.report(null);
    } catch (err) {
      if (this.entries.get(e.key) !== e || e.device !== device) return;
      const reason = remoteFailure(err).msg;
      const was = e.figures.online;
      Object.assign(e.figures, { online: 'offline', lastPoll: Date.now(), error: reason, latency: null, scope: null } satisfies Partial<DeviceFigures>);
      if (was !== 'offline') e.ctx.note({ key: 'wanjiWentOffline', vars: { detail: reason } });
      e.ctx.report([{ key: 'wanjiOffline', vars: { detail: reason } }]);
    } finally {
      clearTimeout(timer);
      this.polls++;
      this.active--;
      e.busy = false;
      // An entry edited while it was polled is polled again at once, as what it is now.
      e.due = e.device === device ? Date.now() + this.settings().interval * 1000 : 0;
      e.waiters.splice(0).forEach((w) => w());
      this.pump();
    }
  }
}
