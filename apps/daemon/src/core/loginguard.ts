/**
 * The defender of every login (the console, API tokens on /metrics, WebDAV, FTP, share passwords):
 * after a few failures an address is locked, longer each time; when failures from everywhere pile
 * up, every login waits a minute. Addresses of the allow list are never locked. Locks are kept in
 * the database (a restart does not lift them), and each new lock and each lift is told (the audit
 * log).
 */
import type { LoginProtection } from '@lucky/contracts';
import { IpFilter } from './cidr.js';

const WINDOW_MS = 3_600_000;
const GLOBAL_WINDOW_MS = 60_000;
/**
 * Password checks one address may have running at once. A check is a slow hash on the shared
 * thread pool: without this, a client with 32 guesses in flight has them all hashed before its
 * first failure locks it, and everyone else's login waits behind them for seconds.
 */
export const CHECKS_IN_FLIGHT = 2;

export interface LockEntry {
  address: string;
  failures: number;
  lastFailure: number;
  lockedUntil: number;
}

/** Where the locks outlive the process (core/loginlocks.ts). */
export interface LockStore {
  load(now: number): LockEntry[];
  save(e: LockEntry): void;
  /** One address, or every one. */
  drop(address?: string): void;
}

export interface LoginGuardHooks {
  store?: LockStore;
  /** A new lock began (not a failure during one): for the audit log. */
  onLock?(address: string, seconds: number, failures: number): void;
}

export type LoginGuardOptions = LoginProtection;

export class LoginGuard {
  private entries = new Map<string, LockEntry>();
  private recent: number[] = [];
  private globalLockUntil = 0;
  private allow: { key: string; filter: IpFilter } = { key: '', filter: new IpFilter('whitelist', []) };
  private listeners = new Set<() => void>();
  private inflight = new Map<string, number>();

  constructor(
    private opts: () => LoginGuardOptions,
    private now: () => number = Date.now,
    private hooks: LoginGuardHooks = {},
  ) {
    for (const e of hooks.store?.load(now()) ?? []) this.entries.set(e.address, e);
  }

  /** Never locked: the allow list of the settings (compiled again when it changes). */
  allowed(address: string): boolean {
    const list = this.opts().allowList ?? [];
    if (list.length === 0) return false;
    const key = list.join(',');
    if (key !== this.allow.key) this.allow = { key, filter: new IpFilter('whitelist', list) };
    return this.allow.filter.allows(address);
  }

  /** Seconds the address must still wait, 0 when it may try. */
  lockedFor(address: string): number {
    if (this.allowed(address)) return 0;
    const t = this.now();
    const until = Math.max(this.entries.get(address)?.lockedUntil ?? 0, this.globalLockUntil);
    return until > t ? Math.ceil((until - t) / 1000) : 0;
  }

  /**
   * A password check for `address` may start: the release to call once it is done, or null while
   * the address already has CHECKS_IN_FLIGHT running (refuse it at once, unchecked and uncounted).
   */
  admit(address: string): (() => void) | null {
    const n = this.inflight.get(address) ?? 0;
    if (n >= CHECKS_IN_FLIGHT && !this.allowed(address)) return null;
    this.inflight.set(address, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.inflight.get(address) ?? 1) - 1;
      if (left > 0) this.inflight.set(address, left);
      else this.inflight.delete(address);
    };
  }

  /** Records a failure; returns the lock in seconds that now applies (0 if none). */
  fail(address: string): number {
    if (this.allowed(address)) return 0;
    const o = this.opts();
    const t = this.now();
    let e = this.entries.get(address);
    if (!e || t - e.lastFailure > WINDOW_MS) e = { address, failures: 0, lastFailure: t, lockedUntil: 0 };
    const wasLocked = e.lockedUntil > t;
    e.failures += 1;
    e.lastFailure = t;
    const over = e.failures - o.freeFailures;
    if (over >= 0) e.lockedUntil = t + Math.min(o.maxLockSeconds, o.baseLockSeconds * 2 ** over) * 1000;
    this.entries.set(address, e);
    let changed = false;
    if (e.lockedUntil > t) {
      this.hooks.store?.save(e);
      if (!wasLocked) this.hooks.onLock?.(address, Math.ceil((e.lockedUntil - t) / 1000), e.failures);
      changed = true;
    }

    this.recent.push(t);
    while (this.recent.length && t - this.recent[0]! > GLOBAL_WINDOW_MS) this.recent.shift();
    if (this.recent.length >= o.globalFailuresPerMinute) {
      this.globalLockUntil = t + GLOBAL_WINDOW_MS;
      changed = true;
    }
    this.prune(t);
    if (changed) this.changed();
    return this.lockedFor(address);
  }

  succeed(address: string): void {
    const e = this.entries.get(address);
    if (!e) return;
    this.entries.delete(address);
    this.hooks.store?.drop(address);
    if (e.lockedUntil > this.now()) this.changed();
  }

  /** Calls `listener` when a lock begins, is lengthened or is lifted (copies of the locks follow); returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }

  list(): { address: string; failures: number; lockedUntil: number }[] {
    const out = [...this.entries.values()].map(({ address, failures, lockedUntil }) => ({ address, failures, lockedUntil }));
    if (this.globalLockUntil > this.now()) out.unshift({ address: '*', failures: this.recent.length, lockedUntil: this.globalLockUntil });
    return out;
  }

  /** Lifts one address's lock and forgets its failures (`*`: the lock of everyone); false when it had none. */
  lift(address: string): boolean {
    if (address === '*') {
      const had = this.globalLockUntil > this.now();
      this.globalLockUntil = 0;
      this.recent = [];
      if (had) this.changed();
      return had;
    }
    const had = this.entries.delete(address);
    if (had) {
      this.hooks.store?.drop(address);
      this.changed();
    }
    return had;
  }

  clear(): void {
    this.entries.clear();
    this.recent = [];
    this.globalLockUntil = 0;
    this.hooks.store?.drop();
    this.changed();
  }

  private prune(t: number): void {
    if (this.entries.size < 10_000) return;
    for (const [k, e] of this.entries) if (t - e.lastFailure > WINDOW_MS && e.lockedUntil < t) this.entries.delete(k);
  }
}
