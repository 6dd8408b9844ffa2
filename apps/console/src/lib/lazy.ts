/**
 * React.lazy remembers a failed import forever, so a chunk requested while the daemon restarts
 * would break the screen until a reload. This one tries again for a while, then reloads the page
 * once (a new build may have replaced the chunk), and only then gives up. It reloads only while the
 * page itself answers: a reload while the daemon is down would swap the console for the browser's
 * error page, so until the daemon is back it keeps trying the chunk.
 */
import { lazy, type ComponentType } from 'react';

export const CHUNK_RETRIES = 10;
export const CHUNK_RETRY_MS = 1000;
const RELOAD_FLAG = 'lucky-chunk-reload';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether the console's own page loads now; not through `call`, which would count a failure. */
export async function pageAnswers(): Promise<boolean> {
  try {
    const res = await fetch(document.baseURI, { cache: 'no-store', signal: AbortSignal.timeout(CHUNK_RETRY_MS * 3) });
    return res.ok;
  } catch {
    return false;
  }
}

export interface RetryEnv {
  pageAnswers?: () => Promise<boolean>;
  reload?: () => void;
}

export async function importWithRetry<T>(load: () => Promise<T>, retries = CHUNK_RETRIES, delayMs = CHUNK_RETRY_MS, env: RetryEnv = {}): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      const m = await load();
      sessionStorage.removeItem(RELOAD_FLAG);
      return m;
    } catch (err) {
      if (i >= retries) {
        if (!(await (env.pageAnswers ?? pageAnswers)())) {
          // The daemon is down: neither a reload nor giving up would help. Try again once it is back.
          await sleep(delayMs);
          continue;
        }
        if (!sessionStorage.getItem(RELOAD_FLAG)) {
          sessionStorage.setItem(RELOAD_FLAG, '1');
          (env.reload ?? (() => window.location.reload()))();
          await new Promise(() => undefined); // the page is going away
        }
        throw err;
      }
      await sleep(delayMs);
    }
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function lazyWithRetry<C extends ComponentType<any>>(load: () => Promise<{ default: C }>) {
  return lazy<C>(() => importWithRetry(load));
}
