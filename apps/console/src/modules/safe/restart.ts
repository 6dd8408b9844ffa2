/**
 * After a restart (or an update, which restarts): wait until the daemon answers again. The polls
 * go around `call` on purpose: they are expected to fail for a while, and `call` would count those
 * failures and end the session on the third.
 */
import { coreRoutes } from '@lucky/contracts';
import { api } from '../../api';
import { authHeaders } from './transfer';

/** What one poll saw: nothing (down), an answer, or an answer with the process start time. */
export type Probe = { state: 'down' } | { state: 'up'; startTime?: number };

export interface WaitOptions {
  probe: () => Promise<Probe>;
  /** The process start time before the restart, when known. */
  before?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  intervalMs?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * Resolves true once the daemon is back: an answer after it was seen down, or an answer from a
 * process with another start time. False when the time runs out (or the wait is aborted).
 */
export async function waitForRestart(o: WaitOptions): Promise<boolean> {
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const now = o.now ?? Date.now;
  const interval = o.intervalMs ?? 1000;
  const deadline = now() + (o.timeoutMs ?? 90_000);
  let seenDown = false;
  while (now() < deadline && !o.signal?.aborted) {
    const p = await o.probe();
    if (p.state === 'down') seenDown = true;
    else if (seenDown) return true;
    else if (o.before !== undefined && p.startTime !== undefined && p.startTime !== o.before) return true;
    await sleep(interval);
  }
  return false;
}

/** One look at /api/info (the start time) — or /version when the session did not survive. */
export async function probeDaemon(timeoutMs = 2000): Promise<Probe> {
  try {
    const res = await fetch(api.url(coreRoutes.info), { headers: authHeaders(), credentials: 'omit', signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return { state: 'down' };
    const body = (await res.json()) as { ret?: number; info?: { startTime?: number } };
    if (typeof body.ret !== 'number') return { state: 'down' };
    return body.info?.startTime !== undefined ? { state: 'up', startTime: body.info.startTime } : { state: 'up' };
  } catch {
    return { state: 'down' };
  }
}
