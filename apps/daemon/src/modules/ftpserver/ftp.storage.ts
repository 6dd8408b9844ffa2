/**
 * The files of a place the FTP commands act on, wherever the storage keeps them: on this machine's
 * disk (its resolved real path) or on a remote (the storage's RemoteFs, by the clean path). The
 * commands ask these questions and never touch either themselves; what only a local disk can do
 * (a file opened for the native relay, truncated in place, renamed in one step) stays here, the
 * same as before remote storages were served.
 *
 * A remote takes a file whole (it is there complete, or not at all): an upload is one stream into
 * `RemoteFs.write`, and a resumed upload (REST + STOR) or an APPE is the bytes kept from the old
 * file followed by the client's, written as a new whole file over the name.
 */
import type { Stats } from 'node:fs';
import { constants as fsConstants } from 'node:fs';
import { lstat, mkdir, open, opendir, rename, rmdir, stat, truncate, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import type { PassedBody } from '../../core/filebody.js';
import { REMOTE_PASS_MIN } from '../../core/remotebody.js';
import { STORAGE_TEMP_PREFIX, type RemoteFs, type RemoteStat } from '../../core/services/storages.js';
import { entryOf, sendable, type Entry } from './ftp.list.js';
import type { Target } from './ftp.paths.js';
import { fsReply, Reply } from './ftp.reply.js';

/** What the commands read of a stat; node's Stats is one, a remote's is made to look the same. */
export type FtpStat = Pick<Stats, 'size' | 'mtime' | 'mode'> & { isDirectory(): boolean; isFile(): boolean };

export function remoteStat(r: RemoteStat): FtpStat {
  const dir = r.kind === 'dir';
  return { size: dir ? 0 : r.size, mtime: new Date(r.mtimeMs), mode: dir ? 0o755 : 0o644, isDirectory: () => dir, isFile: () => !dir };
}

const childPath = (parent: string, name: string) => (parent === '/' ? `/${name}` : `${parent}/${name}`);
const parentOf = (p: string) => (p.lastIndexOf('/') <= 0 ? '/' : p.slice(0, p.lastIndexOf('/')));
const rejectAs = (e: unknown) => Promise.reject(fsReply(e));

/**
 * The place's stat, null when it is not there. On disk `link: true` does not follow a symlink
 * (lstat: what DELE, RMD, RNTO and STOR act on); a remote has none. A remote that fails is its
 * reply (451), never "not there".
 */
export async function statOf(t: Target, o: { link?: boolean } = {}): Promise<FtpStat | null> {
  if (!t.rp.exists) return null;
  const remote = t.grant.remote;
  if (remote) {
    const r = await remote.stat(t.rp.path).catch(rejectAs);
    return r ? remoteStat(r) : null;
  }
  return (o.link ? lstat(t.rp.real) : stat(t.rp.real)).catch(() => null);
}

/**
 * A folder's entries, without upload temp files and names a line cannot carry. On disk they are read
 * as they are sent, and a link is listed only when the storages service lets it resolve inside
 * the root (`resolveLink`); a remote's are fetched now, so that a remote that fails is said before
 * the data connection opens.
 */
export async function entriesOf(t: Target, resolveLink: (path: string) => Promise<string | null>): Promise<AsyncIterable<Entry> | Entry[]> {
  const remote = t.grant.remote;
  if (remote) {
    const list = await remote.list(t.rp.path).catch(rejectAs);
    return list.filter((e) => sendable(e.name) && !e.name.startsWith(STORAGE_TEMP_PREFIX)).map((e) => entryOf(e.name, remoteStat(e)));
  }
  return localEntries(t, resolveLink);
}

async function* localEntries(t: Target, resolveLink: (path: string) => Promise<string | null>): AsyncGenerator<Entry> {
  const dir = await opendir(t.rp.real, { bufferSize: 64 });
  for await (const d of dir) {
    if (!sendable(d.name) || d.name.startsWith(STORAGE_TEMP_PREFIX)) continue;
    if (d.isSymbolicLink()) {
      const real = await resolveLink(childPath(t.rp.path, d.name));
      if (!real) continue;
      const st = await stat(real).catch(() => null);
      if (st) yield entryOf(d.name, st);
      continue;
    }
    const st = await lstat(join(t.rp.real, d.name)).catch(() => null);
    if (st) yield entryOf(d.name, st);
  }
}

/** MKD: a missing parent or an existing name is the disk's error (ENOENT, EEXIST), on a remote too. */
export async function makeFolder(t: Target): Promise<void> {
  const remote = t.grant.remote;
  if (!remote) return mkdir(t.rp.real).catch(rejectAs);
  const parent = parentOf(t.rp.path);
  if (parent !== '/' && (await remote.stat(parent).catch(rejectAs))?.kind !== 'dir') throw new Reply(550, 'No such file or directory.');
  await remote.mkdir(t.rp.path).catch(rejectAs);
}

/** RMD: an empty folder only, on a remote as on disk. */
export async function removeFolder(t: Target): Promise<void> {
  const remote = t.grant.remote;
  if (!remote) return rmdir(t.rp.real).catch(rejectAs);
  if ((await remote.list(t.rp.path).catch(rejectAs)).length > 0) throw new Reply(550, 'Directory not empty.');
  await remote.removeTree(t.rp.path).catch(rejectAs);
}

/** DELE: a file. */
export async function removeFile(t: Target): Promise<void> {
  const remote = t.grant.remote;
  if (!remote) return unlink(t.rp.real).catch(rejectAs);
  await remote.remove(t.rp.path).catch(rejectAs);
}

/** RNTO within one storage (the caller refuses two): a file over a file, or a folder to a new name. */
export async function renameTo(from: Target, to: Target): Promise<void> {
  const remote = from.grant.remote;
  if (!remote) return rename(from.rp.real, to.rp.real).catch(rejectAs);
  await remote.rename(from.rp.path, to.rp.path).catch(rejectAs);
}

/** Whether `inner` is `outer` or inside it (a folder cannot move into itself). */
export function within(inner: Target, outer: Target): boolean {
  const [a, b] = inner.grant.remote ? [inner.rp.path, outer.rp.path] : [inner.rp.real, outer.rp.real];
  return `${a}/`.startsWith(`${b}/`);
}

/**
 * A download: a file opened on disk (for the relay, or streamed), a remote's bytes from the offset
 * left unread on their own connection for the relay (`raw`, `length` bytes), or streamed.
 */
export type Download =
  | { file: FileHandle; stream?: undefined; raw?: undefined }
  | { raw: PassedBody; length: number; file?: undefined; stream?: undefined }
  | { stream: Readable; file?: undefined; raw?: undefined };

/**
 * Opened before the 150 reply: a file that cannot be read is said on the control connection.
 * `native`: the data connection can take the relay, so a large remote range is asked for raw.
 */
export async function openDownload(t: Target, offset: number, size: number, native: boolean): Promise<Download> {
  const remote = t.grant.remote;
  if (!remote) return { file: await open(t.rp.real, 'r').catch(rejectAs) };
  if (offset >= size) return { stream: Readable.from([]) };
  if (native && size - offset >= REMOTE_PASS_MIN) {
    const raw = await remote.readRaw(t.rp.path, { start: offset, end: size - 1 }).catch(rejectAs);
    if (raw) return { raw, length: size - offset };
  }
  return { stream: (await remote.read(t.rp.path, offset > 0 ? { start: offset } : undefined).catch(rejectAs)) as Readable };
}

/** An upload: a file opened on disk at `start`, or a remote upload. */
export type Upload = { file: FileHandle; start: number; remote?: undefined } | { remote: RemoteUpload; file?: undefined };

/**
 * Opened before the 150 reply. On disk: REST n truncates the file to n and writes from there, APPE
 * from its end (on the relay the file's size when the upload starts, since splice(2) refuses a file
 * opened with O_APPEND). On a remote the old file's first `keep` bytes (REST n, or all of it for
 * APPE) are opened now and sent before the client's.
 */
export async function openUpload(t: Target, o: { append: boolean; offset: number; existing: number; native: boolean }): Promise<Upload> {
  const remote = t.grant.remote;
  if (remote) {
    const keep = o.append ? o.existing : o.offset;
    const kept = keep > 0 ? await remote.read(t.rp.path, { start: 0, end: keep - 1 }).catch(rejectAs) : null;
    return { remote: new RemoteUpload(remote, t.rp.path, kept) };
  }
  if (o.offset > 0 && !o.append) await truncate(t.rp.real, o.offset).catch(rejectAs);
  const flags = o.append ? (o.native ? fsConstants.O_WRONLY | fsConstants.O_CREAT : 'a') : o.offset > 0 ? 'r+' : 'w';
  const file = await open(t.rp.real, flags).catch(rejectAs);
  try {
    return { file, start: o.append ? (await file.stat()).size : o.offset };
  } catch (err) {
    await file.close().catch(() => undefined);
    throw fsReply(err);
  }
}

/**
 * One upload to a remote file, the kept bytes of the old file first. The file is there complete
 * when `finish` resolves; `fail` (ABOR, the data connection lost, the session gone) errors the body,
 * so the remote keeps nothing under the name (a body that errors is never taken as complete).
 */
export class RemoteUpload {
  private readonly body = new PassThrough({ highWaterMark: 1 << 20 });
  private done: Promise<void> | null = null;

  constructor(
    private readonly remote: RemoteFs,
    private readonly path: string,
    private kept: NodeJS.ReadableStream | null,
  ) {}

  /** Starts the upload and sends the kept bytes; resolves when the client's may follow. */
  async begin(): Promise<void> {
    this.done = this.remote.write(this.path, this.body);
    // Awaited by finish; a failure meanwhile is seen there (and by the writes it stops).
    this.done.catch(() => undefined);
    const kept = this.kept;
    if (!kept) return;
    for await (const c of kept) {
      if (this.body.destroyed) throw new Error('upload failed');
      if (!this.body.write(c)) await this.drained();
    }
  }

  /** A chunk of the client's; false when the caller should wait for `drained`. */
  write(chunk: Buffer): boolean {
    return this.body.write(chunk);
  }

  /** Resolves when the body takes more; rejects when the upload failed meanwhile. */
  drained(): Promise<void> {
    return Promise.race([new Promise<void>((resolve) => this.body.once('drain', resolve)), this.done!.then(() => Promise.reject(new Error('upload ended')))]);
  }

  /** The client's bytes have all come: the file is there when this resolves. */
  async finish(): Promise<void> {
    this.body.end();
    await this.done!.catch(rejectAs);
  }

  /** The remote's answer to the whole upload: rejects when it fails (the remote went away mid-upload). */
  get settled(): Promise<void> {
    return this.done!;
  }

  fail(reason: Error): void {
    (this.kept as (NodeJS.ReadableStream & { destroy?: () => void }) | null)?.destroy?.();
    if (!this.body.destroyed) this.body.destroy(reason);
  }
}
