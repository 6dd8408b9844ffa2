/**
 * A remote storage's listings and stats kept for a few seconds (the storage's `cacheSeconds`): a
 * WebDAV client asks PROPFIND of the same folder many times in a row, and each trip to a remote
 * costs a round trip or more. Every change made through this storage drops what it touches at once
 * (the name, its folder's listing, and everything below a removed or moved folder), so our own
 * writes are seen by the next request; changes made on the remote by others show within the TTL.
 */
import type { PassedBody } from '../../../core/filebody.js';
import type { RemoteEntry, RemoteFs, RemoteStat } from '../../../core/services/storages.js';

/** Cached answers kept at most, per kind; past it the cache starts again empty. */
const MAX_ENTRIES = 2000;

const parentOf = (p: string) => (p.lastIndexOf('/') <= 0 ? '/' : p.slice(0, p.lastIndexOf('/')));
const nameOf = (p: string) => p.slice(p.lastIndexOf('/') + 1);

export class CachedRemote implements RemoteFs {
  private readonly stats = new Map<string, { at: number; v: RemoteStat | null }>();
  private readonly lists = new Map<string, { at: number; v: RemoteEntry[] }>();

  constructor(
    private readonly inner: RemoteFs,
    private readonly ttlMs: number,
  ) {}

  private fresh(at: number): boolean {
    return Date.now() - at < this.ttlMs;
  }

  /** Drops what a change at `path` makes stale; `tree` also everything below it. */
  private drop(path: string, tree = false): void {
    this.stats.delete(path);
    this.lists.delete(path);
    this.lists.delete(parentOf(path));
    if (!tree) return;
    const below = path === '/' ? '/' : `${path}/`;
    for (const k of [...this.stats.keys()]) if (k.startsWith(below)) this.stats.delete(k);
    for (const k of [...this.lists.keys()]) if (k.startsWith(below)) this.lists.delete(k);
  }

  async stat(path: string): Promise<RemoteStat | null> {
    if (this.ttlMs <= 0) return this.inner.stat(path);
    const hit = this.stats.get(path);
    if (hit && this.fresh(hit.at)) return hit.v;
    // A fresh listing of the folder answers for its names without another trip.
    const list = path === '/' ? undefined : this.lists.get(parentOf(path));
    if (list && this.fresh(list.at)) {
      const e = list.v.find((x) => x.name === nameOf(path));
      return e ? { kind: e.kind, size: e.size, mtimeMs: e.mtimeMs } : null;
    }
    const v = await this.inner.stat(path);
    if (this.stats.size >= MAX_ENTRIES) this.stats.clear();
    this.stats.set(path, { at: Date.now(), v });
    return v;
  }

  async list(path: string): Promise<RemoteEntry[]> {
    if (this.ttlMs <= 0) return this.inner.list(path);
    const hit = this.lists.get(path);
    if (hit && this.fresh(hit.at)) return hit.v;
    const v = await this.inner.list(path);
    if (this.lists.size >= MAX_ENTRIES) this.lists.clear();
    this.lists.set(path, { at: Date.now(), v });
    return v;
  }

  read(path: string, range?: { start: number; end?: number }): Promise<NodeJS.ReadableStream> {
    return this.inner.read(path, range);
  }

  readRaw(path: string, range: { start: number; end: number }): Promise<PassedBody | null> {
    return this.inner.readRaw(path, range);
  }

  async write(path: string, body: NodeJS.ReadableStream, size?: number): Promise<void> {
    this.drop(path);
    try {
      await this.inner.write(path, body, size);
    } finally {
      this.drop(path);
    }
  }

  async mkdir(path: string): Promise<void> {
    try {
      await this.inner.mkdir(path);
    } finally {
      this.drop(path);
    }
  }

  async remove(path: string): Promise<void> {
    try {
      await this.inner.remove(path);
    } finally {
      this.drop(path);
    }
  }

  async removeTree(path: string): Promise<void> {
    try {
      await this.inner.removeTree(path);
    } finally {
      this.drop(path, true);
    }
  }

  async rename(from: string, to: string): Promise<void> {
    try {
      await this.inner.rename(from, to);
    } finally {
      this.drop(from, true);
      this.drop(to, true);
    }
  }
}
