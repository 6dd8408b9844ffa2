/** Slows down password guessing: after a few failures an address is locked, longer each time. */
export interface LoginGuardOptions {
  freeFailures: number;
  baseLockMs: number;
  maxLockMs: number;
  /** Failures older than this are forgotten. */
  windowMs: number;
}

const DEFAULTS: LoginGuardOptions = { freeFailures: 5, baseLockMs: 30_000, maxLockMs: 3_600_000, windowMs: 3_600_000 };

interface Entry {
  failures: number;
  lastFailure: number;
  lockedUntil: number;
}

export class LoginGuard {
  private entries = new Map<string, Entry>();
  private opts: LoginGuardOptions;

  constructor(
    opts: Partial<LoginGuardOptions> = {},
    private now: () => number = Date.now,
  ) {
    this.opts = { ...DEFAULTS, ...opts };
  }

  /** Seconds the address must still wait, 0 when it may try. */
  lockedFor(address: string): number {
    const e = this.entries.get(address);
    if (!e) return 0;
    const left = e.lockedUntil - this.now();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  /** Records a failure; returns the lock in seconds that now applies (0 if none). */
  fail(address: string): number {
    const t = this.now();
    let e = this.entries.get(address);
    if (!e || t - e.lastFailure > this.opts.windowMs) e = { failures: 0, lastFailure: t, lockedUntil: 0 };
    e.failures += 1;
    e.lastFailure = t;
    const over = e.failures - this.opts.freeFailures;
    if (over >= 0) e.lockedUntil = t + Math.min(this.opts.maxLockMs, this.opts.baseLockMs * 2 ** over);
    this.entries.set(address, e);
    this.prune(t);
    return this.lockedFor(address);
  }

  succeed(address: string): void {
    this.entries.delete(address);
  }

  private prune(t: number): void {
    if (this.entries.size < 10_000) return;
    for (const [k, e] of this.entries) {
      if (t - e.lastFailure > this.opts.windowMs && e.lockedUntil < t) this.entries.delete(k);
    }
  }
}
