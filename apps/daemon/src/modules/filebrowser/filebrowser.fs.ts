/**
 * The file operations of the file browser over the storages service: whose permissions apply,
 * entries, listings, tree walks, and what a failure means to the caller. Every path is
 * resolved by `storages.resolve` (the one permission and path check) before it is touched.
 */
import type { Dirent, Stats } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Ret, type FbEntry, type FbKind, type MessageKey } from '@lucky/contracts';
import { AppError, fail } from '../../core/envelope.js';
import { STORAGE_TEMP_PREFIX, type ResolvedPath, type StorageGrant, type StorageOp, type StoragePrincipal, type StoragesService } from '../../core/services/storages.js';
import { MsgError } from '../../lib/msgerror.js';
import type { FbContext } from './filebrowser.state.js';

export const ADMIN: StoragePrincipal = { kind: 'admin', account: 'admin' };
/** Temporary files of uploads (every storage service's): never listed, indexed or zipped. */
export const hidden = (name: string) => name.startsWith(STORAGE_TEMP_PREFIX);

/** Whose permissions the console acts with now (the module's settings). */
export function principalOf(mod: FbContext): StoragePrincipal {
  const s = mod.rules.settings();
  return s.identity === 'user' ? { kind: 'user', account: s.account } : ADMIN;
}

/** The file browser serves remote storages too (filebrowser.storage.ts answers for both kinds). */
export function grantFor(storages: StoragesService, who: StoragePrincipal, storage: string): StorageGrant {
  const g = storages.grant(who, storage, { remote: true });
  if (!g) throw fail(Ret.notFound, 'storageUnknown', { storage });
  return g;
}

/** The path below a folder: `/a` + `b` → `/a/b`. */
export function childPath(parent: string, name: string): string {
  return parent === '/' || parent === '' ? `/${name}` : `${parent.replace(/\/+$/, '')}/${name}`;
}

export function baseName(p: string): string {
  const parts = p.split('/').filter((s) => s !== '');
  return parts[parts.length - 1] ?? '';
}

/** Whether a client's path names the storage's root (resolve refuses deleting it with a vaguer message). */
export function isRootPath(p: string): boolean {
  return p.split('/').every((s) => s === '' || s === '.');
}

const MSG_RET: Partial<Record<string, number>> = {
  storageDenied: Ret.denied,
  storageReadOnly: Ret.denied,
  storagePathEscapes: Ret.badRequest,
  storagePathInvalid: Ret.badRequest,
  storageUnknown: Ret.notFound,
  storageDisabled: Ret.notFound,
  storagePathMissing: Ret.notFound,
  storageNotFound: Ret.notFound,
};

/** Any failure of an operation as the API's answer, naming the path inside the storage (never the disk's). */
export function asAppError(err: unknown, path = ''): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof MsgError) return new AppError((MSG_RET[err.msg.key] ?? Ret.failed) as never, err.msg.key, err.msg.vars ?? {});
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const at = (key: MessageKey, ret: number) => new AppError(ret as never, key, { path });
  switch (code) {
    case 'ENOENT':
      return at('fbNotFound', Ret.notFound);
    case 'EEXIST':
    case 'ENOTEMPTY':
      return at('fbExists', Ret.failed);
    case 'ENOTDIR':
      return at('fbNotDir', Ret.badRequest);
    case 'EISDIR':
      return at('fbNotFile', Ret.badRequest);
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return at('fbFsDenied', Ret.denied);
    case 'ENOSPC':
    case 'EDQUOT':
      return new AppError(Ret.failed, 'fbNoSpace');
    default:
      return new AppError(Ret.failed, 'fbFsFailed', { detail: code ?? (err instanceof Error ? err.message : String(err)) });
  }
}

export async function resolveOr(storages: StoragesService, g: StorageGrant, path: string, op: StorageOp): Promise<ResolvedPath> {
  try {
    return await storages.resolve(g, path, op);
  } catch (err) {
    throw asAppError(err, path);
  }
}

export function modeString(mode: number): string {
  const rwx = 'rwxrwxrwx';
  let out = '';
  for (let i = 0; i < 9; i++) out += mode & (1 << (8 - i)) ? rwx[i] : '-';
  return out;
}

export function kindOf(s: Stats | Dirent): FbKind {
  if (s.isDirectory()) return 'dir';
  if (s.isFile()) return 'file';
  if (s.isSymbolicLink()) return 'link';
  return 'other';
}

export function entryOf(name: string, s: Stats, link = false): FbEntry {
  return { name, kind: kindOf(s), link, size: s.isDirectory() ? 0 : s.size, mtime: Math.round(s.mtimeMs), mode: modeString(s.mode) };
}

/**
 * One entry of a folder. A symlink is shown as what it points at when that stays inside the storage
 * (resolve says so); one leading out, or dangling, is shown as a bare link nobody can open.
 */
export async function childEntry(storages: StoragesService, g: StorageGrant, parentPath: string, parentReal: string, name: string): Promise<FbEntry | null> {
  let s: Stats;
  try {
    s = await lstat(join(parentReal, name));
  } catch {
    return null;
  }
  if (!s.isSymbolicLink()) return entryOf(name, s);
  try {
    const rp = await storages.resolve(g, childPath(parentPath, name), 'read');
    return entryOf(name, await stat(rp.real), true);
  } catch {
    return { ...entryOf(name, s), kind: 'link', link: true, size: 0 };
  }
}

export async function listDir(storages: StoragesService, g: StorageGrant, rp: ResolvedPath): Promise<FbEntry[]> {
  const names = (await readdir(rp.real)).filter((n) => !hidden(n));
  const out: FbEntry[] = [];
  // A few at a time: a folder of thousands of files must not open thousands of stats at once.
  for (let i = 0; i < names.length; i += 64) {
    const batch = await Promise.all(names.slice(i, i + 64).map((n) => childEntry(storages, g, rp.path, rp.real, n)));
    for (const e of batch) if (e) out.push(e);
  }
  return out;
}

export function sortEntries(entries: FbEntry[], sort: 'name' | 'size' | 'mtime', order: 'asc' | 'desc'): FbEntry[] {
  const coll = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
  const dir = order === 'asc' ? 1 : -1;
  return entries.sort((a, b) => {
    const da = a.kind === 'dir' ? 0 : 1;
    const db = b.kind === 'dir' ? 0 : 1;
    if (da !== db) return da - db;
    const by = sort === 'size' ? a.size - b.size : sort === 'mtime' ? a.mtime - b.mtime : 0;
    return (by || coll.compare(a.name, b.name)) * dir;
  });
}

/** Bytes under a path (files only; symlinks are not followed). */
export async function treeSize(real: string): Promise<number> {
  const s = await lstat(real);
  if (!s.isDirectory()) return s.isFile() ? s.size : 0;
  let total = 0;
  for (const e of await readdir(real)) total += await treeSize(join(real, e));
  return total;
}
