/**
 * The daemon's defender of every login (core/loginguard.ts) as web rules' basic auth sees it, in
 * whichever thread serves them: a guess refused by a site's basic auth counts as a failed login of
 * the client's address, and an address the defender locked is answered 429 before its password is
 * checked. On the main thread this is the guard itself; a serving thread holds a copy of the locks,
 * which the coordinator (web.threads.ts) replaces on every change, and sends its failures there.
 */
import type { LoginGuard } from '../../core/loginguard.js';

/** Addresses locked now and until when (ms); `*`: every address (the global lock). */
export type LockList = Array<[address: string, until: number]>;

let guard: LoginGuard | null = null;
/** A serving thread's copy, and where its failures go. */
let copy = new Map<string, number>();
let report: ((ip: string) => void) | null = null;

export const webDefender = {
  /** Main thread: the web module's guard (the daemon's one). */
  use(g: LoginGuard | null): void {
    guard = g;
  },
  /** Serving thread: the coordinator's list, and how to tell it of a failure. */
  follow(list: LockList, to?: (ip: string) => void): void {
    copy = new Map(list);
    if (to) report = to;
  },
  /** Seconds `ip` must still wait; 0 when it may try. */
  lockedFor(ip: string): number {
    if (guard) return guard.lockedFor(ip);
    const until = Math.max(copy.get(ip) ?? 0, copy.get('*') ?? 0);
    const left = until - Date.now();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  },
  /** A basic-auth guess from `ip` was wrong. */
  failed(ip: string): void {
    if (guard) guard.fail(ip);
    else report?.(ip);
  },
  /** Main thread: the locks now, for a serving thread. */
  locks(): LockList {
    const now = Date.now();
    return (guard?.list() ?? []).filter((l) => l.lockedUntil > now).map((l) => [l.address, l.lockedUntil]);
  },
  /** Main thread: calls `listener` with the locks whenever they change; returns the unsubscribe. */
  subscribe(listener: (list: LockList) => void): () => void {
    return guard ? guard.onChange(() => listener(webDefender.locks())) : () => undefined;
  },
};
