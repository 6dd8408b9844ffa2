/**
 * The name index of the storages, for search: per storage, its folders (path, depth, the folder's
 * own mtime and inode) and the names in each (temporary upload files left out), nothing else, so
 * an entry costs about 60 bytes. Built by a walk one folder at a time (every step an await on the
 * disk or the remote, so the event loop keeps serving); kept fresh by the file browser's own writes
 * (`touch`, awaited before the write is answered) and, on a disk, by a check of every indexed
 * folder's mtime and inode, which catches any other writer (WebDAV, FTP, SFTP, a shell) because
 * adding, removing or renaming a name changes its folder's mtime: every INDEX_REFRESH_MS, and before
 * a search when the last check is older than INDEX_RECHECK_MS (awaited up to RECHECK_WAIT_MS, then
 * it goes on behind). A remote storage has no folder times to trust (S3 has no folders at all), so
 * its index is walked again whole every INDEX_REFRESH_MS instead, never before a search.
 * Bounded: all storages together keep at most `max` names; a walk that reaches it stops there and
 * the index says `partial` (searched in the part indexed; walked again at the next refresh). An
 * index nobody searched or browsed for INDEX_IDLE_MS is dropped.
 */
import type { Stats } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { setImmediate as tick } from 'node:timers/promises';
import { STORAGE_TEMP_PREFIX, type RemoteFs, type StorageGrant } from '../../core/services/storages.js';
import { MsgError } from '../../lib/msgerror.js';

/** Folders deeper than this below the root are not indexed (the search depth setting's maximum). */
export const INDEX_DEPTH = 64;
export const INDEX_REFRESH_MS = 5 * 60_000;
export const INDEX_RECHECK_MS = 15_000;
export const RECHECK_WAIT_MS = 40;
export const INDEX_IDLE_MS = 60 * 60_000;
/** A folder changed this recently may change again within the same timestamp: read again next time. */
const SETTLE_MS = 2000;
/** Folders whose mtime is checked at once. */
const CHECKS_AT_ONCE = 16;
/** Folders a walk of a remote asks for at once: each costs a round trip, and the remote serves others too. */
export const REMOTE_LISTS_AT_ONCE = 4;

/** A folder as a source reads it: its own mtime and inode (a disk's; 0 on a remote) and its entries. */
export interface SourceFolder {
  mtimeMs: number;
  ino: number;
  entries: Iterable<{ name: string; isDirectory(): boolean }>;
}

/** Where an index reads the folders of its storage: the disk below a root, or a remote's listings. */
export interface IndexSource {
  /** What the index was made for: a storage whose root or remote client changed is indexed anew. */
  readonly at: string | RemoteFs;
  /** Folders a walk reads at once. */
  readonly parallel: number;
  /** A real path (ResolvedPath.real) as the index names it (`/a/b`, `/` for the root); null outside the storage. */
  tree(real: string): string | null;
  /** The folder now; null when it is no folder (gone, replaced, unreadable). Throws when the source itself fails (a remote down). */
  read(path: string): Promise<SourceFolder | null>;
  /** The folder's mtime and inode now, for the check; absent where there are none to trust (then the check walks again). */
  stamp?: (path: string) => Promise<{ mtimeMs: number; ino: number; isDirectory(): boolean } | null>;
}

export function diskSource(root: string): IndexSource {
  const real = (path: string) => (path === '/' ? root : join(root, path));
  return {
    at: root,
    parallel: 1,
    tree(r) {
      const rel = relative(root, r);
      if (rel.startsWith('..') || rel.startsWith(sep)) return null;
      return rel === '' ? '/' : `/${rel.split(sep).join('/')}`;
    },
    async read(path) {
      const p = real(path);
      let s: Stats;
      try {
        s = await lstat(p);
        if (!s.isDirectory()) return null;
      } catch {
        return null;
      }
      try {
        return { mtimeMs: s.mtimeMs, ino: s.ino, entries: await readdir(p, { withFileTypes: true }) };
      } catch {
        return null;
      }
    },
    stamp: (path) => lstat(real(path)).catch(() => null),
  };
}

export function remoteSource(fs: RemoteFs): IndexSource {
  return {
    at: fs,
    parallel: REMOTE_LISTS_AT_ONCE,
    // A remote's ResolvedPath.real is its clean path already.
    tree: (r) => r,
    async read(path) {
      try {
        const entries = await fs.list(path);
        return { mtimeMs: 0, ino: 0, entries: entries.map((e) => ({ name: e.name, isDirectory: () => e.kind === 'dir' })) };
      } catch (err) {
        // Gone is an answer (dropped from the index); anything else is the remote failing, which must not empty it.
        if (err instanceof MsgError && err.msg.key === 'storageNotFound') return null;
        throw err;
      }
    },
  };
}

interface DirNode {
  /** `/` or `/a/b`: the real tree below the root (the walk follows no symlink). */
  path: string;
  depth: number;
  /** The folder's mtime when it was read; -1: read it again at the next check. */
  mtime: number;
  ino: number;
  names: string[];
  /** The read's sequence number: an older read never replaces a newer one. */
  seq: number;
}

type FolderRead = { node: DirNode; subdirs: string[] } | null;

const child = (dir: string, name: string) => (dir === '/' ? `/${name}` : `${dir}/${name}`);
const parentPath = (p: string) => (p.lastIndexOf('/') <= 0 ? '/' : p.slice(0, p.lastIndexOf('/')));

export interface Matcher {
  test(name: string): boolean;
}

/** Case-insensitive: a substring, or with `*`/`?` a pattern of the whole name. */
export function matcher(q: string): Matcher {
  const esc = (s: string) => s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
  if (/[*?]/.test(q)) {
    const src = q
      .split('')
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : esc(c)))
      .join('');
    return new RegExp(`^${src}$`, 'isu');
  }
  return new RegExp(esc(q), 'iu');
}

export interface IndexHits {
  /** Paths inside the storage (real tree). */
  paths: string[];
  more: boolean;
}

export class StorageIndex {
  readonly dirs = new Map<string, DirNode>();
  /** Names held. */
  count = 0;
  /** The bound stopped a walk: some folders are not indexed. */
  partial = false;
  /** The first walk has finished. */
  built = false;
  lastCheck = 0;
  used = Date.now();
  /** The first walk. */
  readonly ready: Promise<void>;
  private seq = 0;
  private checking: Promise<void> | null = null;
  /** Folders our own writes changed while the first walk ran: read again when it ends. */
  private readonly dirty = new Set<string>();
  /** Folders the bound kept the walk from (walked at the next check if there is room then). */
  private pending: Array<{ path: string; depth: number }> = [];
  private closed = false;

  /**
   * @param room how many more names may be added now (the bound shared by all indexes)
   */
  constructor(
    readonly storage: string,
    readonly source: IndexSource,
    private readonly room: () => number,
  ) {
    this.ready = this.walk([{ path: '/', depth: 0 }])
      // A remote that failed is searched in what was read, and walked again at the next refresh.
      .catch(() => undefined)
      .then(async () => {
        this.built = true;
        this.lastCheck = Date.now();
        for (const d of this.dirty) await this.refresh(d).catch(() => undefined);
        this.dirty.clear();
      });
  }

  close(): void {
    this.closed = true;
    this.dirs.clear();
    this.count = 0;
  }

  /** The folder as it is now, or null when it is not a folder (gone, replaced, unreadable). */
  private async read(path: string, depth: number): Promise<FolderRead> {
    const seq = ++this.seq;
    const started = Date.now();
    const f = await this.source.read(path);
    if (!f) return null;
    const names: string[] = [];
    const subdirs: string[] = [];
    for (const e of f.entries) {
      if (e.name.startsWith(STORAGE_TEMP_PREFIX)) continue;
      names.push(e.name);
      if (e.isDirectory()) subdirs.push(e.name);
    }
    const mtime = started - f.mtimeMs < SETTLE_MS ? -1 : f.mtimeMs;
    return { node: { path, depth, mtime, ino: f.ino, names, seq }, subdirs };
  }

  /** Takes a folder as read, unless the bound refuses it (`full`) or a newer read is there (`stale`). */
  private put(node: DirNode): 'ok' | 'full' | 'stale' {
    if (this.closed) return 'stale';
    const old = this.dirs.get(node.path);
    if (old && old.seq > node.seq) return 'stale';
    const delta = node.names.length - (old?.names.length ?? 0);
    if (delta > 0 && delta > this.room()) {
      this.partial = true;
      if (old) this.drop(node.path);
      return 'full';
    }
    // Names gone from this folder take their indexed subtrees with them.
    if (old) {
      const now = new Set(node.names);
      for (const n of old.names) if (!now.has(n) && this.dirs.has(child(node.path, n))) this.drop(child(node.path, n));
    }
    this.dirs.set(node.path, node);
    this.count += delta;
    return 'ok';
  }

  /** A folder and everything indexed below it. */
  private drop(path: string): void {
    const node = this.dirs.get(path);
    if (!node) return;
    this.dirs.delete(path);
    this.count -= node.names.length;
    for (const n of node.names) if (this.dirs.has(child(path, n))) this.drop(child(path, n));
  }

  /**
   * Breadth first from the folders given; folders already indexed are not walked again, unless
   * `again` (a remote's refresh reads every folder). Where the bound stops it, what was left to walk
   * is kept for the next check. A source that fails stops it with its error, the index kept as it is.
   */
  private async walk(start: Array<{ path: string; depth: number }>, again = false): Promise<void> {
    const queue = start;
    // Reads started ahead of the one taken (a remote answers after a round trip), taken in the queue's order.
    const ahead: Array<Promise<FolderRead>> = [];
    let started = 0;
    for (let i = 0; i < queue.length && !this.closed; i++) {
      for (; started < queue.length && started < i + this.source.parallel; started++) {
        const read = this.read(queue[started]!.path, queue[started]!.depth);
        // One still under way when the walk stops is never awaited.
        read.catch(() => undefined);
        ahead.push(read);
      }
      const { path, depth } = queue[i]!;
      const r = await ahead.shift()!;
      if (!r) {
        this.drop(path);
        continue;
      }
      const put = this.put(r.node);
      if (put === 'full') {
        this.pending.push(...queue.slice(i));
        return;
      }
      if (put === 'stale' && !again) continue;
      if (depth < INDEX_DEPTH) for (const n of r.subdirs) if (again || !this.dirs.has(child(path, n))) queue.push({ path: child(path, n), depth: depth + 1 });
      // A folder's names are in: let everything else waiting have its turn.
      if (i % 32 === 31) await tick();
    }
  }

  /** Reads one indexed folder again, and walks the folders new in it. */
  private async refresh(path: string): Promise<void> {
    const old = this.dirs.get(path);
    const depth = old?.depth ?? (path === '/' ? 0 : path.split('/').length - 1);
    const r = await this.read(path, depth);
    if (!r) {
      this.drop(path);
      return;
    }
    if (this.put(r.node) !== 'ok') return;
    if (depth < INDEX_DEPTH) {
      const fresh = r.subdirs.filter((n) => !this.dirs.has(child(path, n))).map((n) => ({ path: child(path, n), depth: depth + 1 }));
      if (fresh.length > 0) await this.walk(fresh);
    }
    // A folder that is still there may have been replaced by another of the same name (a remote's
    // has no inode to tell: its next walk reads it again).
    const stamp = this.source.stamp;
    if (stamp)
      for (const n of r.subdirs) {
        const c = this.dirs.get(child(path, n));
        if (c && c.seq < r.node.seq) {
          const s = await stamp(c.path);
          if (!s || s.ino !== c.ino) await this.refresh(c.path);
        }
      }
  }

  /**
   * Our own write changed the folder at this real path (its names: a file or folder made, renamed,
   * moved, deleted). The deepest indexed folder at or above it is read again.
   */
  async touch(realDir: string): Promise<void> {
    let path = this.source.tree(realDir);
    if (path === null) return;
    while (!this.dirs.has(path) && path !== '/') path = parentPath(path);
    if (!this.built) {
      this.dirty.add(path);
      return;
    }
    await this.refresh(path);
  }

  /**
   * Every indexed folder's mtime and inode against the disk; the changed ones read again. A partial
   * index (the bound was reached) is walked again where it stopped, if room was made. Without folder
   * times (a remote), every folder is read again; where the remote fails the rest stays as it was
   * (the promise rejects, and the next refresh walks again).
   */
  check(): Promise<void> {
    if (!this.built) return this.ready;
    const stamp = this.source.stamp;
    this.checking ??= (async () => {
      try {
        if (!stamp) {
          const was = this.partial;
          this.partial = false;
          this.pending = [];
          await this.walk([{ path: '/', depth: 0 }], true).catch((err: unknown) => {
            this.partial ||= was;
            throw err;
          });
          return;
        }
        const nodes = [...this.dirs.values()];
        for (let i = 0; i < nodes.length && !this.closed; i += CHECKS_AT_ONCE) {
          const batch = nodes.slice(i, i + CHECKS_AT_ONCE);
          const stats = await Promise.all(batch.map((n) => stamp(n.path)));
          for (let j = 0; j < batch.length; j++) {
            const n = batch[j]!;
            if (this.dirs.get(n.path) !== n) continue;
            const s = stats[j];
            if (!s?.isDirectory()) this.drop(n.path);
            else if (s.mtimeMs !== n.mtime || s.ino !== n.ino) await this.refresh(n.path);
          }
        }
        if (this.partial && this.room() > 0) {
          this.partial = false;
          const again = this.pending;
          this.pending = [];
          await this.walk(again);
        }
      } finally {
        this.lastCheck = Date.now();
        this.checking = null;
      }
    })();
    return this.checking;
  }

  /**
   * Names matching under a folder (real tree path), at most `depth` levels below it, in walk
   * order (shallow first); `limit` paths at most, `more` when there were others.
   */
  search(under: string, m: Matcher, depth: number, limit: number): IndexHits {
    this.used = Date.now();
    const paths: string[] = [];
    const prefix = under === '/' ? '/' : `${under}/`;
    const baseDepth = under === '/' ? 0 : under.split('/').length - 1;
    for (const n of this.dirs.values()) {
      if (under !== '/' && n.path !== under && !n.path.startsWith(prefix)) continue;
      if (n.depth - baseDepth >= depth) continue;
      for (const name of n.names) {
        if (!m.test(name)) continue;
        if (paths.length >= limit) return { paths, more: true };
        paths.push(child(n.path, name));
      }
    }
    return { paths, more: false };
  }

  /** A folder found changed while answering (a hit that is gone): read again at the next check. */
  stale(path: string): void {
    const n = this.dirs.get(parentPath(path));
    if (n) n.mtime = -1;
  }
}

/** The indexes of one file browser (one daemon): the shared bound, the periodic checks, idle ones dropped. */
export class SearchIndexes {
  private readonly map = new Map<string, StorageIndex>();
  private timer: NodeJS.Timeout | null = null;
  /** Names at most, all storages together (the setting indexMax). */
  private max = 200_000;

  /** `exists`: whether a storage is still there; a deleted one's index is dropped, not walked again. */
  constructor(private readonly exists: (storage: string) => boolean = () => true) {}

  /** The bound from the settings; lowered below what is held, the indexes are dropped and walked anew. */
  setMax(n: number): void {
    if (n === this.max) return;
    this.max = n;
    if (this.total() > n) for (const [k, i] of this.map) {
      i.close();
      this.map.delete(k);
    }
  }

  total(): number {
    let n = 0;
    for (const i of this.map.values()) n += i.count;
    return n;
  }

  /** The storage's index, made (and its first walk started) when absent or when the storage's root or remote changed. */
  of(g: StorageGrant): StorageIndex {
    let i = this.map.get(g.storage);
    if (i && i.source.at !== (g.remote ?? g.root)) {
      i.close();
      i = undefined;
    }
    if (!i) {
      i = new StorageIndex(g.storage, g.remote ? remoteSource(g.remote) : diskSource(g.root), () => this.max - this.total());
      this.map.set(g.storage, i);
      i.ready.catch(() => undefined);
      this.arm();
    }
    i.used = Date.now();
    return i;
  }

  /** The index of a storage if there is one (our writes need not make one). */
  peek(storage: string): StorageIndex | undefined {
    return this.map.get(storage);
  }

  /** Our own write changed the names in these folders (real paths). */
  async touch(storage: string, realDirs: string[]): Promise<void> {
    const i = this.map.get(storage);
    if (!i) return;
    // The write is done whatever the index hears: a remote that fails here is read at its next walk.
    for (const d of new Set(realDirs)) await i.touch(d).catch(() => undefined);
  }

  private arm(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), 30_000);
    this.timer.unref();
  }

  async tick(now = Date.now()): Promise<void> {
    // Side by side: a remote's walk takes round trips, and the disks' checks need not wait for it.
    const checks: Array<Promise<void>> = [];
    for (const [k, i] of this.map) {
      if (now - i.used > INDEX_IDLE_MS || !this.exists(k)) {
        i.close();
        this.map.delete(k);
      } else if (i.built && now - i.lastCheck > INDEX_REFRESH_MS) checks.push(i.check().catch(() => undefined));
    }
    await Promise.all(checks);
    if (this.map.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  close(): void {
    for (const i of this.map.values()) i.close();
    this.map.clear();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
