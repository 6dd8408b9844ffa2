/**
 * The files of a place the file browser acts on, wherever its storage keeps them: on this machine's
 * disk (the resolved real path) or on a remote (the storage's RemoteFs, by the clean path). The
 * routes, uploads, zips, thumbnails and share links ask these questions and never touch either
 * themselves, so one code path serves both; what only a local disk can do (sendfile, rename in one
 * step, cp, fsync) stays here for local storages. A remote's ResolvedPath.real is its clean path,
 * never a path on disk: nothing here hands it to node:fs.
 */
import type { Stats } from 'node:fs';
import { createReadStream, createWriteStream } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { chmod, cp, lstat, mkdir, open, readdir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyReply } from 'fastify';
import { Ret, type FbEntry } from '@lucky/contracts';
import { fail } from '../../core/envelope.js';
import { STORAGE_TEMP_PREFIX, type RemoteFs, type RemoteStat, type ResolvedPath, type StorageGrant, type StoragesService } from '../../core/services/storages.js';
import { baseName, childPath, entryOf, hidden, listDir, treeSize } from './filebrowser.fs.js';
import { REMOTE_LISTS_AT_ONCE } from './filebrowser.index.js';
import { sendFile, type Body } from './filebrowser.send.js';
import type { FbState } from './filebrowser.state.js';
import type { ThumbSource } from './filebrowser.thumbs.js';
import type { ZipSource } from './filebrowser.zip.js';

/** A remote image larger than this gets no thumbnail: it is read whole into memory to be decoded. */
export const FB_THUMB_REMOTE_MAX = 24 * 1024 * 1024;

const enoent = (path: string) => Object.assign(new Error(`no such file: ${path}`), { code: 'ENOENT' });
const parentOf = (p: string) => (p.lastIndexOf('/') <= 0 ? '/' : p.slice(0, p.lastIndexOf('/')));

/** A remote name as the Stats the routes read (no inode, no links; the modes a new file and folder get). */
export function remoteStats(r: RemoteStat): Stats {
  const dir = r.kind === 'dir';
  const mtime = new Date(r.mtimeMs);
  return {
    ino: 0,
    size: dir ? 0 : r.size,
    mtimeMs: r.mtimeMs,
    mtime,
    mode: dir ? 0o40755 : 0o100644,
    isDirectory: () => dir,
    isFile: () => !dir,
    isSymbolicLink: () => false,
  } as Stats;
}

const remoteOf = (rp: ResolvedPath): RemoteFs | null => rp.grant.remote;

/** What a place is (symlinks followed); ENOENT when it is not there. */
export async function statAt(rp: ResolvedPath): Promise<Stats> {
  const remote = remoteOf(rp);
  if (!remote) return stat(rp.real);
  const r = await remote.stat(rp.path);
  if (!r) throw enoent(rp.path);
  return remoteStats(r);
}

/** The place itself (a local symlink as a link); a remote has no links. */
export async function lstatAt(rp: ResolvedPath): Promise<Stats> {
  return remoteOf(rp) ? statAt(rp) : lstat(rp.real);
}

/** The same storage one level down. */
export function childAt(rp: ResolvedPath, name: string, exists = true): ResolvedPath {
  const path = childPath(rp.path, name);
  return { grant: rp.grant, path, real: remoteOf(rp) ? path : join(rp.real, name), exists };
}

/** A folder's entries as a listing shows them (upload temp files never). */
export async function listAt(storages: StoragesService, g: StorageGrant, rp: ResolvedPath): Promise<FbEntry[]> {
  const remote = remoteOf(rp);
  if (!remote) return listDir(storages, g, rp);
  return (await remote.list(rp.path)).filter((e) => !hidden(e.name)).map((e) => entryOf(e.name, remoteStats(e)));
}

/** Bytes under a place (files only; local symlinks not followed). */
export async function treeSizeAt(rp: ResolvedPath): Promise<number> {
  const remote = remoteOf(rp);
  if (!remote) return treeSize(rp.real);
  const s = await remote.stat(rp.path);
  if (!s) return 0;
  if (s.kind === 'file') return s.size;
  let total = 0;
  for (const e of await remote.list(rp.path)) total += e.kind === 'file' ? e.size : await treeSizeAt(childAt(rp, e.name));
  return total;
}

export async function mkdirAt(rp: ResolvedPath): Promise<void> {
  const remote = remoteOf(rp);
  if (!remote) return mkdir(rp.real);
  await remote.mkdir(rp.path);
}

/** The folders above a path that are missing, made from the top down (an upload into a new folder). */
export async function mkdirsAbove(rp: ResolvedPath): Promise<void> {
  const remote = remoteOf(rp);
  if (!remote) {
    await mkdir(dirname(rp.real), { recursive: true });
    return;
  }
  const missing: string[] = [];
  for (let p = parentOf(rp.path); p !== '/'; p = parentOf(p)) {
    const s = await remote.stat(p);
    if (s?.kind === 'dir') break;
    if (s) throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
    missing.unshift(p);
  }
  for (const p of missing) await remote.mkdir(p);
}

export async function createEmptyAt(rp: ResolvedPath): Promise<void> {
  const remote = remoteOf(rp);
  if (!remote) return writeFile(rp.real, '', { flag: 'wx' });
  await remote.write(rp.path, Readable.from([]), 0);
}

export async function renameAt(src: ResolvedPath, dst: ResolvedPath): Promise<void> {
  const remote = remoteOf(src);
  if (!remote) return rename(src.real, dst.real);
  await remote.rename(src.path, dst.path);
}

/** A file or a folder with everything in it; nothing when it is gone already. */
export async function removeAt(rp: ResolvedPath): Promise<void> {
  const remote = remoteOf(rp);
  if (!remote) return rm(rp.real, { recursive: true, force: true });
  const s = await remote.stat(rp.path);
  if (!s) return;
  await (s.kind === 'dir' ? remote.removeTree(rp.path) : remote.remove(rp.path));
}

/** A file's bytes from `start` to `end` (inclusive), or all of them, as a stream. */
export async function readAt(rp: ResolvedPath, start = 0, end?: number): Promise<Readable> {
  const remote = remoteOf(rp);
  if (!remote) return createReadStream(rp.real, { start, ...(end !== undefined ? { end } : {}), highWaterMark: 1 << 20 });
  const whole = start === 0 && end === undefined;
  return (await remote.read(rp.path, whole ? undefined : { start, ...(end !== undefined ? { end } : {}) })) as Readable;
}

/** A small file whole (the text editor's, a remote thumbnail's source: the caller has checked its size). */
export async function readAllAt(rp: ResolvedPath, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let n = 0;
  const s = await readAt(rp);
  for await (const c of s as AsyncIterable<Buffer>) {
    n += c.length;
    if (n > max) {
      s.destroy();
      throw fail(Ret.badRequest, 'fbFsFailed', { detail: 'file grew while read' });
    }
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}

/**
 * A stream into a file, there complete when this resolves and never as if complete when it rejects:
 * on disk a temp file beside it renamed over it; on a remote its own write (complete or nothing).
 */
export async function writeAt(rp: ResolvedPath, body: Readable, size?: number): Promise<void> {
  const remote = remoteOf(rp);
  if (remote) return remote.write(rp.path, body, size);
  const tmp = join(dirname(rp.real), `${STORAGE_TEMP_PREFIX}fb-${randomBytes(6).toString('hex')}`);
  try {
    await pipeline(body, createWriteStream(tmp, { flags: 'wx', mode: 0o666 }));
    await rename(tmp, rp.real);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

/** The text editor's save: on disk written beside, synced, given the old mode and renamed over it. */
export async function saveAt(rp: ResolvedPath, data: Buffer): Promise<Stats> {
  const remote = remoteOf(rp);
  if (remote) {
    await remote.write(rp.path, Readable.from([data]), data.length);
    return statAt(rp);
  }
  const tmp = join(dirname(rp.real), `${STORAGE_TEMP_PREFIX}fb-${randomBytes(6).toString('hex')}`);
  try {
    const fh = await open(tmp, 'wx', 0o644);
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    if (rp.exists) await chmod(tmp, (await stat(rp.real)).mode & 0o777);
    await rename(tmp, rp.real);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  return stat(rp.real);
}

/** Whether the folder a new name goes in is there. */
export async function parentIsFolder(rp: ResolvedPath): Promise<boolean> {
  const remote = remoteOf(rp);
  if (!remote) return !!(await stat(dirname(rp.real)).catch(() => null))?.isDirectory();
  return parentOf(rp.path) === '/' || (await remote.stat(parentOf(rp.path)))?.kind === 'dir';
}

/**
 * Move or copy one place to a name that is free (the caller removed what it replaces). Within one
 * disk or one remote a move is one rename; across them (another storage, a mount inside the
 * storage) a copy, then the source removed. Local to local copies keep cp's speed and links.
 */
export async function transferAt(src: ResolvedPath, dst: ResolvedPath, move: boolean): Promise<void> {
  if (!src.grant.remote && !dst.grant.remote) {
    if (move) {
      try {
        await rename(src.real, dst.real);
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      }
      await cp(src.real, dst.real, { recursive: true, errorOnExist: true, force: false, verbatimSymlinks: true });
      await rm(src.real, { recursive: true, force: true });
      return;
    }
    await cp(src.real, dst.real, { recursive: true, errorOnExist: true, force: false, preserveTimestamps: true, verbatimSymlinks: true });
    return;
  }
  if (move && src.grant.remote && src.grant.storage === dst.grant.storage) return src.grant.remote.rename(src.path, dst.path);
  await copyTree(src, dst);
  if (move) await removeAt(src);
}

/** A file or folder copied through streams, between a disk and a remote or two remotes (links are left out). */
async function copyTree(src: ResolvedPath, dst: ResolvedPath): Promise<void> {
  const s = await lstatAt(src);
  if (s.isFile()) return writeAt(dst, await readAt(src), s.size);
  if (!s.isDirectory()) return;
  await mkdirAt(dst);
  for (const c of await childrenAt(src)) if (c.kind !== 'other') await copyTree(childAt(src, c.name), childAt(dst, c.name, false));
}

/** A folder's names with what they are (no link followed), sorted, upload temp files left out. */
async function childrenAt(rp: ResolvedPath): Promise<Array<{ name: string; kind: 'file' | 'dir' | 'other'; stats: Stats | null }>> {
  const remote = remoteOf(rp);
  const out: Array<{ name: string; kind: 'file' | 'dir' | 'other'; stats: Stats | null }> = [];
  if (remote) {
    for (const e of await remote.list(rp.path)) if (!hidden(e.name)) out.push({ name: e.name, kind: e.kind, stats: remoteStats(e) });
  } else {
    for (const e of await readdir(rp.real, { withFileTypes: true })) {
      if (hidden(e.name)) continue;
      out.push({ name: e.name, kind: e.isDirectory() ? 'dir' : e.isFile() ? 'file' : 'other', stats: null });
    }
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The entries of a zip for resolved paths: a file as itself, a folder as itself and everything
 * under it (empty folders too, so the archive unpacks to the same tree). Symlinks are left out:
 * what they point at may be outside the storage. A remote file is opened when the zip reaches it.
 */
export async function* zipSourcesAt(items: ResolvedPath[]): AsyncGenerator<ZipSource> {
  const used = new Set<string>();
  for (const rp of items) {
    const s = await lstatAt(rp);
    let base = baseName(rp.path) || 'files';
    // Two selected items of one name (from different folders): the second gets a suffix.
    for (let i = 2; used.has(base); i++) base = `${baseName(rp.path)} (${i})`;
    used.add(base);
    if (s.isFile()) yield fileSource(rp, base, s);
    else if (s.isDirectory()) yield* walkForZip(rp, base, s);
  }
}

function fileSource(rp: ResolvedPath, name: string, s: Stats): ZipSource {
  return remoteOf(rp) ? { name, open: () => readAt(rp), size: s.size, mtime: s.mtime, mode: s.mode } : { name, real: rp.real, size: s.size, mtime: s.mtime, mode: s.mode };
}

async function* walkForZip(rp: ResolvedPath, name: string, s: Stats): AsyncGenerator<ZipSource> {
  yield { name: `${name}/`, size: 0, mtime: s.mtime, mode: s.mode };
  let children;
  try {
    children = await childrenAt(rp);
  } catch {
    return;
  }
  for (const c of children) {
    const at = childAt(rp, c.name);
    if (c.kind === 'other') continue;
    const cs = c.stats ?? (await lstat(at.real).catch(() => null));
    if (!cs) continue;
    if (c.kind === 'dir') yield* walkForZip(at, `${name}/${c.name}`, cs);
    else yield fileSource(at, `${name}/${c.name}`, cs);
  }
}

/** A file, whole or one byte range of it, from the disk or from its remote. */
export function sendAt(req: IncomingMessage, reply: FastifyReply, rp: ResolvedPath, s: Stats, name: string, inline: boolean, native: boolean): Promise<FastifyReply> {
  const remote = remoteOf(rp);
  const body: Body = remote ? { remote, path: rp.path } : { real: rp.real };
  return sendFile(req, reply, body, s, name, inline, native);
}

/** What a thumbnail is made from: the file on disk, or a remote image read whole (bounded). */
export function thumbSourceAt(g: StorageGrant, rp: ResolvedPath, s: Stats): ThumbSource {
  const src: ThumbSource = { storage: g.storage, path: rp.path, real: rp.real, mtimeMs: s.mtimeMs, size: s.size };
  if (!remoteOf(rp)) return src;
  if (s.size > FB_THUMB_REMOTE_MAX) throw fail(Ret.badRequest, 'fbThumbRemoteTooLarge', { path: rp.path, max: `${FB_THUMB_REMOTE_MAX >> 20} MiB` });
  return { ...src, load: () => readAllAt(rp, FB_THUMB_REMOTE_MAX) };
}

/** The search index hears of our changes to these folders (real paths: a remote's are its clean paths). */
export async function touched(state: FbState, g: StorageGrant, realDirs: string[]): Promise<void> {
  await state.indexes.touch(g.storage, realDirs);
}

/** Each item's work, `n` at a time, the answers in the items' order. */
async function inBatches<T, R>(items: T[], n: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += n) out.push(...(await Promise.all(items.slice(i, i + n).map(fn))));
  return out;
}

/**
 * Search hits (paths in the storage's real tree) as they are now; null for one gone since it was
 * indexed. A remote's come from their folders' listings: a trip per folder, not per name.
 */
export async function entriesAt(g: StorageGrant, paths: string[]): Promise<Array<FbEntry | null>> {
  const remote = g.remote;
  if (!remote) {
    const stats = await inBatches(paths, 64, (p) => lstat(join(g.root, p)).catch(() => null));
    return stats.map((st, i) => (st ? entryOf(baseName(paths[i]!), st, st.isSymbolicLink()) : null));
  }
  const folders = [...new Set(paths.map(parentOf))];
  const listed = await inBatches(folders, REMOTE_LISTS_AT_ONCE, (f) =>
    remote.list(f).then(
      (es) => new Map(es.map((e) => [e.name, e])),
      () => null,
    ),
  );
  const byFolder = new Map(folders.map((f, i) => [f, listed[i]]));
  return paths.map((p) => {
    const e = byFolder.get(parentOf(p))?.get(baseName(p));
    return e ? entryOf(e.name, remoteStats(e)) : null;
  });
}
