/**
 * Slows down password guessing: after a few failures an address is locked, longer each time; and
 * when failures from everywhere pile up, every login waits a minute.
 */
import type { LoginProtection } from '@lucky/contracts';

const WINDOW_MS = 3_600_000;
const GLOBAL_WINDOW_MS = 60_000;

interface Entry {
  failures: number;
  lastFailure: number;
  lockedUntil: number;
}

export type LoginGuardOptions = LoginProtection;

export class LoginGuard {
  private entries = new Map<string, Entry>();
  private recent: number[] = [];
  private globalLockUntil = 0;

  constructor(
    private opts: () => LoginGuardOptions,
    private now: () => number = Date.now,
  ) {}

  /** Seconds the address must still wait, 0 when it may try. */
  lockedFor(address: string): number {
    const t = this.now();
    const until = Math.max(this.entries.get(address)?.lockedUntil ?? 0, this.globalLockUntil);
    return until > t ? Math.ceil((until - t) / 1000) : 0;
  }

  /** Records a failure; returns the lock in seconds that now applies (0 if none). */
  fail(address: string): number {
    const o = this.opts();
    const t = this.now();
    let e = this.entries.get(address);
    if (!e || t - e.lastFailure > WINDOW_MS) e = { failures: 0, lastFailure: t, lockedUntil: 0 };
    e.failures += 1;
    e.lastFailure = t;
    const over = e.failures - o.freeFailures;
    if (over >= 0) e.lockedUntil = t + Math.min(o.maxLockSeconds, o.baseLockSeconds * 2 ** over) * 1000;
    this.entries.set(address, e);

    this.recent.push(t);
    while (this.recent.length && t - this.recent[0]! > GLOBAL_WINDOW_MS) this.recent.shift();
    if (this.recent.length >= o.globalFailuresPerMinute) this.globalLockUntil = t + GLOBAL_WINDOW_MS;
    this.prune(t);
    return this.lockedFor(address);
  }

  succeed(address: string): void {
    this.entries.delete(address);
  }

  list(): { address: string; failures: number; lockedUntil: number }[] {
    const out = [...this.entries].map(([address, e]) => ({ address, failures: e.failures, lockedUntil: e.lockedUntil }));
    if (this.globalLockUntil > this.now()) out.unshift({ address: '*', failures: this.recent.length, lockedUntil: this.globalLockUntil });
    return out;
  }

  clear(): void {
    this.entries.clear();
    this.recent = [];
    this.globalLockUntil = 0;
  }

  private prune(t: number): void {
    if (this.entries.size < 10_000) return;
    for (const [k, e] of this.entries) if (t - e.lastFailure > WINDOW_MS && e.lockedUntil < t) this.entries.delete(k);
  }
}
