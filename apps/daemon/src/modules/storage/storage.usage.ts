/**
 * How full a storage is: the filesystem's figures (statfs, cheap, asked each time) and the bytes
 * under the directory, which takes a walk. The walk runs in the background, one at a time per
 * directory, bounded in files and time (a router must not spend minutes in a photo archive), and
 * its result is cached and refreshed lazily when someone looks after it has aged.
 */
import { lstat, opendir, statfs } from 'node:fs/promises';
import { join } from 'node:path';

export interface WalkLimits {
  /** Entries looked at before the walk stops and keeps what it counted. */
  maxEntries: number;
  maxMs: number;
  /** A result younger than this is served as is. */
  freshMs: number;
}

export const WALK_LIMITS: WalkLimits = { maxEntries: 200_000, maxMs: 10_000, freshMs: 5 * 60_000 };

export interface Walked {
  used: number;
  at: number;
  /** The walk stopped at a limit: `used` is a lower bound. */
  partial: boolean;
}

/** Sums the sizes of files under `dir`; symlinks are not followed (they are not the storage's bytes). */
export async function walkUsed(dir: string, limits: WalkLimits = WALK_LIMITS): Promise<Walked> {
  const started = Date.now();
  const stack = [dir];
  let used = 0;
  let seen = 0;
  while (stack.length > 0) {
    const cur = stack.pop()!;
    let handle;
    try {
      handle = await opendir(cur);
    } catch {
      // A folder we may not read counts as empty rather than failing the whole figure.
      continue;
    }
    for await (const ent of handle) {
      if (++seen > limits.maxEntries || Date.now() - started > limits.maxMs) {
        await handle.close().catch(() => undefined);
        return { used, at: Date.now(), partial: true };
      }
      const p = join(cur, ent.name);
      if (ent.isDirectory()) stack.push(p);
      else if (ent.isFile()) {
        try {
          used += (await lstat(p)).size;
        } catch {
          // Gone while we walked: nothing to count.
        }
      }
    }
  }
  return { used, at: Date.now(), partial: false };
}

export async function fsSpace(dir: string): Promise<{ fsTotal: number; fsFree: number }> {
  try {
    const s = await statfs(dir);
    return { fsTotal: s.blocks * s.bsize, fsFree: s.bavail * s.bsize };
  } catch {
    return { fsTotal: 0, fsFree: 0 };
  }
}

/** The cached walks, by directory. */
export class UsageCache {
  private done = new Map<string, Walked>();
  private running = new Map<string, Promise<Walked>>();

  constructor(private limits: WalkLimits = WALK_LIMITS) {}

  /** What is known now; starts a walk in the background when nothing is known or it has aged. */
  peek(dir: string): Walked | null {
    const known = this.done.get(dir) ?? null;
    if (!known || Date.now() - known.at > this.limits.freshMs) void this.walk(dir).catch(() => undefined);
    return known;
  }

  /** A fresh-enough figure, waiting for a walk if need be. */
  async get(dir: string): Promise<Walked> {
    const known = this.done.get(dir);
    if (known && Date.now() - known.at <= this.limits.freshMs) return known;
    return this.walk(dir);
  }

  /** The figure is stale (a service wrote a lot): the next look walks again. */
  invalidate(dir: string): void {
    this.done.delete(dir);
  }

  private walk(dir: string): Promise<Walked> {
    let p = this.running.get(dir);
    if (!p) {
      p = walkUsed(dir, this.limits).then((w) => {
        this.done.set(dir, w);
        return w;
      });
      this.running.set(dir, p);
      void p.finally(() => this.running.delete(dir)).catch(() => undefined);
    }
    return p;
  }
}
