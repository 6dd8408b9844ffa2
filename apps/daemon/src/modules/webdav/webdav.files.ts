/**
 * The files of a place the WebDAV methods act on, wherever the storage keeps them: on this
 * machine's disk (its resolved real path) or on a remote (the storage's RemoteFs, by the clean
 * path). The methods ask these questions and never touch either themselves, so one code path serves
 * both; what only a local disk can do (sendfile, rename across the tree in one step) stays here.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, type Stats } from 'node:fs';
import { cp, lstat, mkdir, readdir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { STORAGE_TEMP_PREFIX, type RemoteFs, type RemoteStat } from '../../core/services/storages.js';
import { isRemoteDown } from './webdav.request.js';
import type { Target } from './webdav.site.js';

/** What the methods read of a stat; a remote one is made to look the same. */
export type DavStat = Pick<Stats, 'ino' | 'size' | 'mtimeMs' | 'mtime' | 'birthtimeMs' | 'ctimeMs'> & { isDirectory(): boolean; isFile(): boolean };

/** A remote name as a stat: no inode (etags then come from size and time, as GET's do). */
export function remoteStat(r: RemoteStat): DavStat {
  const dir = r.kind === 'dir';
  return { ino: 0, size: r.size, mtimeMs: r.mtimeMs, mtime: new Date(r.mtimeMs), birthtimeMs: r.mtimeMs, ctimeMs: r.mtimeMs, isDirectory: () => dir, isFile: () => !dir };
}

/** The folder stat the top of a tree shows when it has nothing better. */
export const FOLDER_STAT: DavStat = { ino: 0, size: 0, mtimeMs: 0, mtime: new Date(0), birthtimeMs: 0, ctimeMs: 0, isDirectory: () => true, isFile: () => false };

const childPath = (parent: string, name: string) => (parent === '/' ? `/${name}` : `${parent}/${name}`);
const parentOf = (p: string) => (p.lastIndexOf('/') <= 0 ? '/' : p.slice(0, p.lastIndexOf('/')));

export async function statOf(t: Target): Promise<DavStat | null> {
  if (!t.rp.exists) return null;
  const remote = t.grant.remote;
  try {
    if (remote) {
      const r = await remote.stat(t.rp.path);
      return r ? remoteStat(r) : null;
    }
    return await stat(t.rp.real);
  } catch (err) {
    if (isRemoteDown(err)) throw err;
    return null;
  }
}

/** Whether the folder a new name would go in is there. */
export async function parentIsFolder(t: Target): Promise<boolean> {
  const remote = t.grant.remote;
  if (remote) return parentOf(t.rp.path) === '/' || (await remote.stat(parentOf(t.rp.path)).catch(() => null))?.kind === 'dir';
  return !!(await stat(dirname(t.rp.real)).catch(() => null))?.isDirectory();
}

export interface Child {
  name: string;
  /** The child's path inside the storage, and where it really is (its real path on disk; the path again on a remote). */
  path: string;
  real: string;
  stat: DavStat;
}

/**
 * A folder's children, without upload temp files. On disk a symlink is listed only when the storages
 * service lets it resolve inside the root (`resolveLink`), with what it points to.
 */
export async function childrenOf(t: Target, resolveLink: (path: string) => Promise<string | null>): Promise<Child[]> {
  const remote = t.grant.remote;
  if (remote) {
    return (await remote.list(t.rp.path)).map((e) => ({ name: e.name, path: childPath(t.rp.path, e.name), real: childPath(t.rp.path, e.name), stat: remoteStat(e) }));
  }
  const out: Child[] = [];
  for (const e of await readdir(t.rp.real, { withFileTypes: true })) {
    if (e.name.startsWith(STORAGE_TEMP_PREFIX)) continue;
    const path = childPath(t.rp.path, e.name);
    let real: string | null = join(t.rp.real, e.name);
    if (e.isSymbolicLink()) real = await resolveLink(path);
    if (!real) continue;
    const s = await stat(real).catch(() => null);
    if (s) out.push({ name: e.name, path, real, stat: s });
  }
  return out;
}

/** Bytes under a place (a file's size; a folder's files, all the way down). */
export async function treeSize(t: Target): Promise<number> {
  const remote = t.grant.remote;
  if (remote) return remoteTreeSize(remote, t.rp.path);
  return localTreeSize(t.rp.real);
}

async function localTreeSize(real: string): Promise<number> {
  const s = await lstat(real);
  if (!s.isDirectory()) return s.size;
  let total = 0;
  for (const e of await readdir(real)) total += await localTreeSize(join(real, e));
  return total;
}

async function remoteTreeSize(remote: RemoteFs, path: string): Promise<number> {
  const s = await remote.stat(path);
  if (!s) return 0;
  if (s.kind === 'file') return s.size;
  let total = 0;
  for (const e of await remote.list(path)) total += e.kind === 'file' ? e.size : await remoteTreeSize(remote, childPath(path, e.name));
  return total;
}

export async function removeTree(t: Target): Promise<void> {
  const remote = t.grant.remote;
  if (!remote) return rm(t.rp.real, { recursive: true, force: true });
  const s = await remote.stat(t.rp.path);
  if (!s) return;
  await (s.kind === 'dir' ? remote.removeTree(t.rp.path) : remote.remove(t.rp.path));
}

/** MKCOL: a missing parent is `ENOENT`, an existing name `EEXIST`, as the disk says them. */
export async function makeFolder(t: Target): Promise<void> {
  const remote = t.grant.remote;
  if (!remote) return mkdir(t.rp.real);
  if (!(await parentIsFolder(t))) throw Object.assign(new Error('no parent'), { code: 'ENOENT' });
  if (await remote.stat(t.rp.path)) throw Object.assign(new Error('exists'), { code: 'EEXIST' });
  await remote.mkdir(t.rp.path);
}

/** An empty file where there was none (LOCK of an unmapped URL). */
export async function createEmpty(t: Target): Promise<void> {
  const remote = t.grant.remote;
  if (!remote) return writeFile(t.rp.real, '', { flag: 'wx' });
  if (!(await parentIsFolder(t))) throw Object.assign(new Error('no parent'), { code: 'ENOENT' });
  await remote.write(t.rp.path, Readable.from([]), 0);
}

/** MOVE: in one step within one disk or one remote; otherwise copied, then the source removed. */
export async function moveTree(src: Target, dst: Target): Promise<void> {
  if (!src.grant.remote && !dst.grant.remote) {
    try {
      await rename(src.rp.real, dst.rp.real);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    }
  } else if (src.grant.remote && src.grant.remote === dst.grant.remote) {
    return src.grant.remote.rename(src.rp.path, dst.rp.path);
  }
  await copyTree(src, dst, false);
  await removeTree(src);
}

/** COPY: a file, or a folder with everything in it (or alone, `shallow`). */
export async function copyTree(src: Target, dst: Target, shallow: boolean): Promise<void> {
  if (!src.grant.remote && !dst.grant.remote) {
    if (shallow) return mkdir(dst.rp.real);
    return cp(src.rp.real, dst.rp.real, { recursive: true, errorOnExist: true, force: false, preserveTimestamps: false });
  }
  const s = await statOf(src);
  if (!s) return;
  if (!s.isDirectory()) return copyFile(src, dst);
  await makeFolder(dst);
  if (shallow) return;
  // Links are not copied (a remote has none; on disk they are the operator's, not the client's).
  for (const c of await childrenOf(src, async () => null)) await copyTree(childTarget(src, c.name, true), childTarget(dst, c.name, false), false);
}

function childTarget(t: Target, name: string, exists: boolean): Target {
  const path = childPath(t.rp.path, name);
  return { ...t, rp: { ...t.rp, path, real: t.grant.remote ? path : join(t.rp.real, name), exists } };
}

async function copyFile(src: Target, dst: Target): Promise<void> {
  const size = (await statOf(src))?.size;
  const body = await readFrom(src, 0);
  // The size said: a remote takes a known small body in one request.
  await writeTo(dst, body, size);
}

/** A file's bytes from `start` (to `end`, inclusive) as a stream. */
async function readFrom(t: Target, start: number, end?: number): Promise<NodeJS.ReadableStream> {
  const remote = t.grant.remote;
  if (remote) return remote.read(t.rp.path, start > 0 || end !== undefined ? { start, ...(end !== undefined ? { end } : {}) } : undefined);
  return createReadStream(t.rp.real, { start, ...(end !== undefined ? { end } : {}) });
}

/** A stream into a file that is there complete when this resolves (disk: a temp file renamed over it). */
export async function writeTo(t: Target, body: NodeJS.ReadableStream, size?: number): Promise<void> {
  const remote = t.grant.remote;
  if (remote) return remote.write(t.rp.path, body, size);
  const tmp = join(dirname(t.rp.real), `${STORAGE_TEMP_PREFIX}${randomBytes(6).toString('hex')}`);
  try {
    await pipeline(body, createWriteStream(tmp, { flags: 'wx' }));
    await rename(tmp, t.rp.real);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

