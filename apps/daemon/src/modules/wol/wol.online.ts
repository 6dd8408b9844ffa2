/**
 * Is a device up: a TCP connection to its check port is accepted (a sleeping PC answers nothing;
 * a refusal is not counted: loopback and routers refuse for hosts that are down),
 * or with port 0 an ICMP echo through the system's ping (unprivileged where the kernel allows it).
 * Probes of the list are asked for by the console while it shows the list: a few at a time, and
 * an answer reused for a moment, so nobody looking means no probing.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import type { WolOnline } from '@lucky/contracts';

export function probeTcp(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host, port });
    const done = (up: boolean) => {
      clearTimeout(timer);
      s.destroy();
      resolve(up);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

export function probeIcmp(host: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const seconds = String(Math.max(1, Math.round(timeoutMs / 1000)));
    const child = spawn('ping', ['-n', '-c', '1', '-W', seconds, host], { stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs + 1000);
    child.once('error', () => {
      clearTimeout(timer);
      resolve(false);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code === 0);
    });
  });
}

export function probe(d: { checkHost: string; checkPort: number }, timeoutMs = 1500): Promise<boolean> {
  return d.checkPort > 0 ? probeTcp(d.checkHost, d.checkPort, timeoutMs) : probeIcmp(d.checkHost, timeoutMs);
}

/** Probes of many devices, at most `parallel` at once, each answer kept `freshMs`. */
export class OnlineProbes {
  private cache = new Map<string, { at: number; up: boolean; target: string }>();
  private inflight = new Map<string, Promise<boolean>>();

  constructor(
    private parallel = 4,
    private freshMs = 3000,
  ) {}

  async states(devices: Array<{ key: string; enable: boolean; checkHost: string; checkPort: number }>): Promise<Record<string, WolOnline>> {
    const out: Record<string, WolOnline> = {};
    const todo = devices.filter((d) => {
      if (d.checkHost === '') out[d.key] = 'unknown';
      return d.checkHost !== '';
    });
    let next = 0;
    const worker = async () => {
      while (next < todo.length) {
        const d = todo[next++]!;
        out[d.key] = (await this.one(d)) ? 'online' : 'offline';
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.parallel, todo.length) }, worker));
    return out;
  }

  private one(d: { key: string; checkHost: string; checkPort: number }): Promise<boolean> {
    const target = `${d.checkHost}:${d.checkPort}`;
    const hit = this.cache.get(d.key);
    if (hit && hit.target === target && Date.now() - hit.at < this.freshMs) return Promise.resolve(hit.up);
    let p = this.inflight.get(d.key);
    if (!p) {
      p = probe(d).then((up) => {
        this.cache.set(d.key, { at: Date.now(), up, target });
        return up;
      });
      this.inflight.set(d.key, p);
      void p.finally(() => this.inflight.delete(d.key));
    }
    return p;
  }

  /** The last answer for a device, however old; undefined before its first probe ends. */
  known(key: string): boolean | undefined {
    return this.cache.get(key)?.up;
  }

  forget(key: string): void {
    this.cache.delete(key);
  }
}

const perModule = new WeakMap<object, OnlineProbes>();

/** The module's probes, one set per loaded module: the console's list and /metrics share their answers. */
export function probesOf(mod: object): OnlineProbes {
  let p = perModule.get(mod);
  if (!p) perModule.set(mod, (p = new OnlineProbes()));
  return p;
}
