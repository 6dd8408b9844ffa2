/**
 * Resumable uploads: created with a path and a size (the quota is checked then, and before each
 * chunk), sent in chunks at the offset the server has, resumed from that offset after a dropped
 * connection (the bytes on disk are the offset), and put in place at the end by a rename of the
 * temporary file, which lives inside the storage so the rename is atomic. Folders named by the
 * path are made then. For a remote storage the parts are staged in the daemon's data folder on this
 * machine, and the assembled file is streamed to the remote at the end (there complete, or not at all).
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, lstat, mkdir, rename, rm, truncate, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Ret, type FbUpload } from '@lucky/contracts';
import { AppError, fail } from '../../core/envelope.js';
import type { StorageGrant, StoragesService } from '../../core/services/storages.js';
import { STORAGE_TEMP_PREFIX } from '../../core/services/storages.js';
import { asAppError, isRootPath, resolveOr } from './filebrowser.fs.js';
import { lstatAt, mkdirsAbove, writeAt } from './filebrowser.storage.js';
import type { FbState, Upload } from './filebrowser.state.js';

const human = (n: number) => (n >= 1 << 30 ? `${(n / (1 << 30)).toFixed(2)} GiB` : n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : `${Math.ceil(n / 1024)} KiB`);

export const uploadView = (u: Upload): FbUpload => ({ id: u.id, storage: u.storage, path: u.path, size: u.size, offset: u.offset, active: u.active });

/** Refused when the storage's quota leaves less than `need` bytes, counting what other uploads still mean to write. */
export async function checkRoom(storages: StoragesService, state: FbState, g: StorageGrant, need: number, except?: string): Promise<void> {
  if (need <= 0 || g.quota === null) return;
  const room = (await storages.room(g)) - state.reserved(g.storage, except);
  if (need > room) throw new AppError(Ret.failed, 'fbQuota', { name: g.name, room: human(Math.max(0, room)), need: human(need) });
}

export async function createUpload(storages: StoragesService, state: FbState, g: StorageGrant, path: string, size: number, overwrite: boolean): Promise<Upload> {
  if (isRootPath(path)) throw fail(Ret.badRequest, 'fbRootForbidden');
  const rp = await resolveOr(storages, g, path, 'write');
  let freed = 0;
  if (rp.exists) {
    const s = await lstatAt(rp).catch((e: unknown) => Promise.reject(asAppError(e, rp.path)));
    if (s.isDirectory() || !overwrite) throw fail(Ret.failed, 'fbExists', { path: rp.path });
    freed = s.size;
  }
  await checkRoom(storages, state, g, size - freed);
  const id = randomBytes(18).toString('base64url');
  let tmp: string;
  if (g.remote) {
    // Staged here (a remote cannot be written at an offset); sent whole at the end.
    tmp = join(await state.stageDir(), `fb-${id}`);
  } else {
    const root = await resolveOr(storages, g, '/', 'write');
    tmp = join(root.real, `${STORAGE_TEMP_PREFIX}fb-${id}`);
  }
  try {
    // The mode a new file gets (0666 less the umask): the rename keeps it.
    await writeFile(tmp, '', { flag: 'wx', mode: 0o666 });
  } catch (err) {
    throw asAppError(err, rp.path);
  }
  const u: Upload = { id, storage: g.storage, path: rp.path, size, offset: 0, overwrite, tmp, active: Date.now(), busy: false };
  state.uploads.set(id, u);
  return u;
}

export function uploadOf(state: FbState, id: string): Upload {
  const u = state.uploads.get(id);
  if (!u) throw fail(Ret.notFound, 'fbUploadUnknown');
  return u;
}

/**
 * Appends the request's body at `offset`. The bytes past the declared size are refused (and what
 * this request wrote is cut off again); a dropped connection keeps what reached the disk, which is
 * where the client resumes.
 */
export async function writeChunk(storages: StoragesService, state: FbState, g: StorageGrant, u: Upload, offset: number, body: unknown): Promise<void> {
  if (u.busy || offset !== u.offset) throw fail(Ret.badRequest, 'fbUploadOffset', { offset: u.offset });
  if (!(body instanceof Readable)) throw fail(Ret.badRequest, 'uploadMissing');
  // Still allowed to write there (permissions or the storage may have changed since it started).
  await resolveOr(storages, g, u.path, 'write');
  await checkRoom(storages, state, g, u.size - u.offset, u.id);
  u.busy = true;
  u.active = Date.now();
  const start = u.offset;
  const limit = u.size - start;
  let n = 0;
  const tooMuch = fail(Ret.badRequest, 'fbUploadTooMuch', { size: u.size });
  const limiter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      n += chunk.length;
      done(n > limit ? tooMuch : null, chunk);
    },
  });
  const ws = createWriteStream(u.tmp, { flags: 'r+', start, highWaterMark: 1 << 20 });
  // pipe, not pipeline, from the request: a refusal must not destroy it, or the answer could not be sent.
  body.on('error', (err) => limiter.destroy(err));
  body.on('aborted', () => limiter.destroy(new Error('aborted')));
  body.pipe(limiter);
  try {
    await pipeline(limiter, ws);
    u.offset = start + n;
  } catch (err) {
    body.unpipe(limiter);
    body.resume();
    if (!ws.closed) await new Promise<void>((r) => ws.once('close', () => r()));
    if (err === tooMuch) {
      await truncate(u.tmp, start).catch(() => undefined);
      u.offset = start;
      throw err;
    }
    // What reached the disk stays: the client resumes from there.
    u.offset = Math.min(u.size, start + ws.bytesWritten);
    await truncate(u.tmp, u.offset).catch(() => undefined);
    if ((err as NodeJS.ErrnoException).code) throw asAppError(err, u.path);
    throw fail(Ret.failed, 'fbUploadAborted', { offset: u.offset });
  } finally {
    u.busy = false;
    u.active = Date.now();
  }
}

export async function completeUpload(storages: StoragesService, state: FbState, g: StorageGrant, u: Upload): Promise<string> {
  if (u.busy) throw fail(Ret.badRequest, 'fbUploadOffset', { offset: u.offset });
  if (u.offset !== u.size) throw fail(Ret.badRequest, 'fbUploadIncomplete', { offset: u.offset, size: u.size });
  const rp = await resolveOr(storages, g, u.path, 'write');
  if (rp.exists) {
    const s = await lstatAt(rp).catch((e: unknown) => Promise.reject(asAppError(e, rp.path)));
    if (s.isDirectory() || !u.overwrite) throw fail(Ret.failed, 'fbExists', { path: rp.path });
  }
  u.busy = true;
  if (g.remote) {
    try {
      await mkdirsAbove(rp);
      // Streamed from the staged file; the remote's write leaves nothing under the name unless complete.
      await writeAt(rp, createReadStream(u.tmp, { highWaterMark: 1 << 20 }), u.size);
    } catch (err) {
      // The staged file stays: complete may be asked again once the remote answers.
      throw asAppError(err, rp.path);
    } finally {
      u.busy = false;
      u.active = Date.now();
    }
    state.uploads.delete(u.id);
    await rm(u.tmp, { force: true });
    return rp.path;
  }
  try {
    await mkdir(dirname(rp.real), { recursive: true });
    try {
      await rename(u.tmp, rp.real);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      // A filesystem mounted inside the storage: copied beside the target first, then renamed there.
      const near = join(dirname(rp.real), `${STORAGE_TEMP_PREFIX}fb-${u.id}`);
      await copyFile(u.tmp, near);
      await rename(near, rp.real);
      await rm(u.tmp, { force: true });
    }
  } catch (err) {
    throw asAppError(err, rp.path);
  } finally {
    u.busy = false;
  }
  state.uploads.delete(u.id);
  return rp.path;
}

export async function cancelUpload(state: FbState, u: Upload): Promise<void> {
  state.uploads.delete(u.id);
  await rm(u.tmp, { force: true });
}
