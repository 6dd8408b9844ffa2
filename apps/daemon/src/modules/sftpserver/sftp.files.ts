/**
 * The SFTP requests (version 3, draft-ietf-secsh-filexfer-02, as OpenSSH speaks it) of one logged
 * in session over the rule's mounts. Every path goes through the `storages` service (the one path
 * and permission check: `..`, symlinks out of the root, read-only storages, the user's
 * permissions) at every request; handles are this session's own and never outlive it.
 *
 * Deliberate choices:
 * - A client's chmod/chown is ignored (files keep the daemon's modes and owner); times and size are
 *   applied. uid and gid are shown as 0: the daemon's accounts are nobody's business.
 * - New symlinks are refused; existing ones are followed only where they stay inside the storage.
 * - RENAME onto an existing name fails, as version 3 says (clients remove first).
 */
import { constants as fsc, type Dirent, type Stats } from 'node:fs';
import { lstat, mkdir, open, opendir, rename, rmdir, stat, truncate, unlink, utimes, type FileHandle } from 'node:fs/promises';
import type { Dir } from 'node:fs';
import ssh2, { type Attributes, type FileEntry, type SFTPWrapper } from 'ssh2';
import type { SftpRule } from '@lucky/contracts';
import { locate, rootMount, virtualOf, type Mount } from '../../core/storagemounts.js';
import { OutOfOrder, RemoteReader, RemoteWriter } from './sftp.remote.js';
import { STORAGE_TEMP_PREFIX, type RemoteFs, type RemoteStat, type ResolvedPath, type StorageGrant, type StorageOp, type StoragePrincipal, type StoragesService } from '../../core/services/storages.js';
import { MsgError } from '../../lib/msgerror.js';

const { OPEN_MODE, STATUS_CODE } = ssh2.utils.sftp;

/** The most bytes one READ answers: OpenSSH's own limit (a client asking more gets less, and asks again). */
const MAX_READ = 256 * 1024;
/** Open handles per session (OpenSSH's sftp-server allows 512). */
const MAX_HANDLES = 512;
/** Entries per READDIR answer. */
const DIR_BATCH = 128;

export interface SftpCounters {
  requests: number;
  uploads: number;
  downloads: number;
  bytesIn: number;
  bytesOut: number;
  denied: number;
}

export interface SftpSessionDeps {
  storages: StoragesService;
  /** The rule as it is now (mounts may change while a session is open). */
  rule(): SftpRule;
  who: StoragePrincipal;
  counters: SftpCounters;
  /** A request arrived: the idle timer starts again. */
  touch(): void;
  /** An access line (op, virtual path, result, bytes) when the rule's log wants them. */
  access(op: string, path: string, ok: boolean, bytes: number): void;
}

/** A status to answer with, thrown from a request's handler. */
class Status extends Error {
  constructor(
    readonly code: number,
    text: string,
  ) {
    super(text);
  }
}

interface FileOpen {
  kind: 'file';
  fh: FileHandle;
  path: string;
  write: boolean;
  /** Bytes moved through this handle. */
  bytes: number;
  /** Bytes the storage's quota still allows past the file's size at open (Infinity without one). */
  budget: number;
  /** The file's size as the quota counts it: the largest end written so far. */
  end: number;
  /**
   * Opened to append: its writes go to the end in the order they arrived, whatever their offsets
   * (OpenSSH's reput sends them so). Requests run concurrently here, so they wait in this chain
   * for the ones before them; positional writes of other handles never wait.
   */
  appendChain: Promise<unknown> | null;
  /** The answer to the previous READ on this handle has gone out when this resolves (read()). */
  replyTurn: Promise<void>;
}

interface DirOpen {
  kind: 'dir';
  path: string;
  /** Null for the virtual root (the mounts as folders): its entries are listed at once. */
  dir: Dir | null;
  real: string | null;
  pending: FileEntry[] | null;
}

/** A file of a remote storage: read as a stream, or written as one (sftp.remote.ts). */
interface RemoteOpen {
  kind: 'remote';
  path: string;
  reader: RemoteReader | null;
  writer: RemoteWriter | null;
  bytes: number;
}

type Open = FileOpen | DirOpen | RemoteOpen;

const FILE_MODE = fsc.S_IFREG | 0o644;
const DIR_MODE = fsc.S_IFDIR | 0o755;

/** What a remote's stat shows a client. */
function remoteAttrs(r: RemoteStat): Attributes {
  const t = Math.floor(r.mtimeMs / 1000);
  return { mode: r.kind === 'dir' ? DIR_MODE : FILE_MODE, uid: 0, gid: 0, size: r.size, atime: t, mtime: t };
}

/** What a stat shows a client. */
function attrsOf(s: Stats): Attributes {
  return { mode: s.mode, uid: 0, gid: 0, size: s.size, atime: Math.floor(s.atimeMs / 1000), mtime: Math.floor(s.mtimeMs / 1000) };
}

const DIR_ATTRS: Attributes = { mode: fsc.S_IFDIR | 0o755, uid: 0, gid: 0, size: 0, atime: 0, mtime: 0 };

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The `ls -l` line OpenSSH's client prints for `ls -l`. */
function longname(name: string, a: Attributes): string {
  const t = a.mode & fsc.S_IFMT;
  const kind = t === fsc.S_IFDIR ? 'd' : t === fsc.S_IFLNK ? 'l' : t === fsc.S_IFREG ? '-' : '?';
  let perms = '';
  for (const shift of [6, 3, 0]) {
    const p = (a.mode >> shift) & 7;
    perms += (p & 4 ? 'r' : '-') + (p & 2 ? 'w' : '-') + (p & 1 ? 'x' : '-');
  }
  const d = new Date(a.mtime * 1000);
  const recent = Date.now() - d.getTime() < 180 * 86_400_000;
  const when = `${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2)} ${recent ? `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}` : ` ${d.getUTCFullYear()}`}`;
  return `${kind}${perms}    1 0        0        ${String(a.size).padStart(8)} ${when} ${name}`;
}

/** A client's path as a clean absolute virtual path: `.`, `..` and empty segments resolved as text, never above `/`. */
export function normalise(path: string): string {
  const out: string[] = [];
  for (const seg of path.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return `/${out.join('/')}`;
}

/** A failure of the file system as the client's status. */
function fsStatus(err: unknown): Status {
  if (err instanceof Status) return err;
  if (err instanceof MsgError) {
    if (err.msg.key === 'storageNotFound') return new Status(STATUS_CODE.NO_SUCH_FILE, err.message);
    // The remote did not answer: a failure of this request, not a refusal.
    if (err.msg.key === 'storageRemoteDown') return new Status(STATUS_CODE.FAILURE, err.message);
    return new Status(STATUS_CODE.PERMISSION_DENIED, err.message);
  }
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return new Status(STATUS_CODE.NO_SUCH_FILE, 'No such file');
  if (code === 'EACCES' || code === 'EPERM') return new Status(STATUS_CODE.PERMISSION_DENIED, 'Permission denied');
  if (code === 'EEXIST') return new Status(STATUS_CODE.FAILURE, 'File exists');
  if (code === 'ENOTEMPTY') return new Status(STATUS_CODE.FAILURE, 'Directory not empty');
  if (code === 'EISDIR') return new Status(STATUS_CODE.FAILURE, 'Is a directory');
  if (code === 'EXDEV') return new Status(STATUS_CODE.OP_UNSUPPORTED, 'Cannot rename across storages');
  if (code === 'ENOSPC' || code === 'EDQUOT') return new Status(STATUS_CODE.FAILURE, 'No space left');
  return new Status(STATUS_CODE.FAILURE, 'Failure');
}

export class SftpSession {
  private readonly opens = new Map<number, Open>();
  private nextHandle = 1;
  private closed = false;

  constructor(
    private readonly sftp: SFTPWrapper,
    private readonly d: SftpSessionDeps,
  ) {
    const on = <A extends unknown[]>(event: string, fn: (reqid: number, ...args: A) => Promise<void>) =>
      sftp.on(event, (reqid: number, ...args: A) => {
        d.counters.requests++;
        d.touch();
        fn(reqid, ...args).catch((err: unknown) => this.fail(reqid, err));
      });
    on('OPEN', (id, path: string, flags: number) => this.openFile(id, path, flags));
    on('READ', (id, h: Buffer, offset: number, len: number) => this.read(id, h, offset, len));
    on('WRITE', (id, h: Buffer, offset: number, data: Buffer) => this.write(id, h, offset, data));
    on('FSTAT', (id, h: Buffer) => this.fstat(id, h));
    on('FSETSTAT', (id, h: Buffer, attrs: Attributes) => this.fsetstat(id, h, attrs));
    on('CLOSE', (id, h: Buffer) => this.close(id, h));
    on('OPENDIR', (id, path: string) => this.openDir(id, path));
    on('READDIR', (id, h: Buffer) => this.readDir(id, h));
    // Both follow links (inside the storage only: resolve refuses the others); READDIR shows links as links.
    on('STAT', (id, path: string) => this.stat(id, path));
    on('LSTAT', (id, path: string) => this.stat(id, path));
    on('SETSTAT', (id, path: string, attrs: Attributes) => this.setstat(id, path, attrs));
    on('REMOVE', (id, path: string) => this.remove(id, path));
    on('MKDIR', (id, path: string) => this.mkdir(id, path));
    on('RMDIR', (id, path: string) => this.rmdir(id, path));
    on('REALPATH', async (id, path: string) => {
      const p = normalise(path);
      this.sftp.name(id, [{ filename: p, longname: p, attrs: {} as Attributes }]);
    });
    on('READLINK', (id, path: string) => this.readlink(id, path));
    on('RENAME', (id, from: string, to: string) => this.rename(id, from, to));
    on('SYMLINK', async () => {
      throw new Status(STATUS_CODE.PERMISSION_DENIED, 'Symbolic links cannot be made here');
    });
    sftp.on('close', () => void this.closeAll());
  }

  /** Every handle let go of (the channel or the connection closed). */
  async closeAll(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const all = [...this.opens.values()];
    this.opens.clear();
    for (const o of all) await this.release(o, false);
  }

  private fail(reqid: number, err: unknown): void {
    const s = fsStatus(err);
    if (s.code === STATUS_CODE.PERMISSION_DENIED) this.d.counters.denied++;
    if (this.closed) return;
    try {
      this.sftp.status(reqid, s.code, s.message);
    } catch {
      // The channel is gone: nobody to tell.
    }
  }

  private ok(reqid: number): void {
    this.sftp.status(reqid, STATUS_CODE.OK);
  }

  /** A place in the tree resolved for an operation; the virtual root and names that are no mount refused. */
  private async target(path: string, op: StorageOp): Promise<{ rp: ResolvedPath; grant: StorageGrant; mount: Mount; virtual: string }> {
    const mounts = this.d.rule().mounts;
    const place = locate(normalise(path), mounts);
    if (place.kind === 'root') throw new Status(STATUS_CODE.PERMISSION_DENIED, 'Permission denied');
    if (place.kind === 'none') throw new Status(STATUS_CODE.NO_SUCH_FILE, 'No such file');
    const grant = this.d.storages.grant(this.d.who, place.mount.storage, { remote: true });
    if (!grant) throw new Status(STATUS_CODE.NO_SUCH_FILE, 'No such file');
    const rp = await this.d.storages.resolve(grant, place.inner, op);
    return { rp, grant, mount: place.mount, virtual: virtualOf(place.mount, mounts, rp.path) };
  }

  private handleOf(o: Open): Buffer {
    if (this.opens.size >= MAX_HANDLES) throw new Status(STATUS_CODE.FAILURE, 'Too many open handles');
    const n = this.nextHandle++;
    this.opens.set(n, o);
    const h = Buffer.alloc(4);
    h.writeUInt32BE(n);
    return h;
  }

  private lookup(h: Buffer): Open {
    const o = h.length === 4 ? this.opens.get(h.readUInt32BE(0)) : undefined;
    if (!o) throw new Status(STATUS_CODE.FAILURE, 'Invalid handle');
    return o;
  }

  private file(h: Buffer): FileOpen {
    const o = this.lookup(h);
    if (o.kind !== 'file') throw new Status(STATUS_CODE.FAILURE, 'Not a file handle');
    return o;
  }

  private async openFile(reqid: number, path: string, pflags: number): Promise<void> {
    const writing = (pflags & OPEN_MODE.WRITE) !== 0;
    const reading = (pflags & OPEN_MODE.READ) !== 0 || !writing;
    const t = await this.target(path, writing ? 'write' : 'read');
    if (t.rp.path === '/') throw new Status(STATUS_CODE.FAILURE, 'Is a directory');
    if (t.grant.remote) return this.openRemote(reqid, t.grant.remote, t.rp.path, t.virtual, pflags);
    let flags = reading && writing ? fsc.O_RDWR : writing ? fsc.O_WRONLY : fsc.O_RDONLY;
    if (pflags & OPEN_MODE.CREAT) flags |= fsc.O_CREAT;
    if (pflags & OPEN_MODE.TRUNC) flags |= fsc.O_TRUNC;
    if (pflags & OPEN_MODE.EXCL) flags |= fsc.O_EXCL;
    // APPEND is not O_APPEND: the writes are put at the end one after the other (FileOpen.appendChain).
    // The name was checked as resolved just now; a link put in its place since is not followed.
    flags |= fsc.O_NOFOLLOW;
    const fh = await open(t.rp.real, flags, 0o644);
    let s: Stats;
    try {
      s = await fh.stat();
      if (!s.isFile()) throw new Status(STATUS_CODE.FAILURE, 'Not a regular file');
    } catch (err) {
      await fh.close().catch(() => undefined);
      throw err;
    }
    const budget = writing ? await this.d.storages.room(t.grant) : Infinity;
    const append = (pflags & OPEN_MODE.APPEND) !== 0;
    const o: FileOpen = { kind: 'file', fh, path: t.virtual, write: writing, bytes: 0, budget, end: s.size, appendChain: append ? Promise.resolve() : null, replyTurn: Promise.resolve() };
    let h: Buffer;
    try {
      h = this.handleOf(o);
    } catch (err) {
      await fh.close().catch(() => undefined);
      throw err;
    }
    if (this.closed) return void (await this.release(o, false));
    this.sftp.handle(reqid, h);
  }

  /**
   * Reads run at once, but their answers go out in the order the reads came: OpenSSH's scp keeps
   * a download only up to the first gap in the order of the answers (its "highwater"), so answers
   * that overtook each other cut the file short with no error.
   */
  private async read(reqid: number, h: Buffer, offset: number, len: number): Promise<void> {
    const r = this.lookup(h);
    if (r.kind === 'remote') return this.readRemote(reqid, r, offset, len);
    const o = this.file(h);
    const want = Math.min(len, MAX_READ);
    const buf = Buffer.allocUnsafe(want);
    const reading = o.fh.read(buf, 0, want, offset).then(
      (v) => ({ n: v.bytesRead, err: null as unknown }),
      (err: unknown) => ({ n: 0, err }),
    );
    const turn = o.replyTurn;
    let done!: () => void;
    o.replyTurn = new Promise<void>((resolve) => (done = resolve));
    try {
      const { n, err } = await reading;
      await turn;
      if (err) return this.fail(reqid, err);
      if (n === 0) return this.sftp.status(reqid, STATUS_CODE.EOF);
      o.bytes += n;
      this.d.counters.bytesOut += n;
      this.sftp.data(reqid, n === want ? buf : buf.subarray(0, n));
    } finally {
      done();
    }
  }

  private async write(reqid: number, h: Buffer, offset: number, data: Buffer): Promise<void> {
    const r = this.lookup(h);
    if (r.kind === 'remote') return this.writeRemote(reqid, r, offset, data);
    const o = this.file(h);
    if (!o.write) throw new Status(STATUS_CODE.PERMISSION_DENIED, 'Handle not open for writing');
    if (o.appendChain) {
      const mine = o.appendChain.then(() => this.writeAt(reqid, o, o.end, data));
      o.appendChain = mine.catch(() => undefined);
      return mine;
    }
    return this.writeAt(reqid, o, offset, data);
  }

  private async writeAt(reqid: number, o: FileOpen, offset: number, data: Buffer): Promise<void> {
    const end = offset + data.length;
    // Only growth counts against the quota: rewriting bytes already there costs nothing.
    if (end > o.end && end - o.end > o.budget) throw new Status(STATUS_CODE.FAILURE, 'Storage quota exceeded');
    await o.fh.write(data, 0, data.length, offset);
    if (end > o.end) {
      o.budget -= end - o.end;
      o.end = end;
    }
    o.bytes += data.length;
    this.d.counters.bytesIn += data.length;
    this.ok(reqid);
  }

  private async applyAttrs(real: string, attrs: Attributes, fh?: FileHandle): Promise<void> {
    if (attrs.size !== undefined) await (fh ? fh.truncate(attrs.size) : truncate(real, attrs.size));
    if (attrs.mtime !== undefined || attrs.atime !== undefined) {
      const s = fh ? await fh.stat() : await stat(real);
      const atime = attrs.atime ?? s.atimeMs / 1000;
      const mtime = attrs.mtime ?? s.mtimeMs / 1000;
      await (fh ? fh.utimes(atime, mtime) : utimes(real, atime, mtime));
    }
  }

  private async fstat(reqid: number, h: Buffer): Promise<void> {
    const o = this.lookup(h);
    if (o.kind !== 'remote') return this.sftp.attrs(reqid, attrsOf(await this.file(h).fh.stat()));
    const size = o.writer ? o.writer.pos : (o.reader?.size ?? 0);
    this.sftp.attrs(reqid, { mode: FILE_MODE, uid: 0, gid: 0, size, atime: 0, mtime: 0 });
  }

  private async fsetstat(reqid: number, h: Buffer, attrs: Attributes): Promise<void> {
    // A remote keeps its own times (and its size is what was written): nothing to apply.
    if (this.lookup(h).kind === 'remote') return this.ok(reqid);
    const o = this.file(h);
    if (!o.write && (attrs.size !== undefined || attrs.mtime !== undefined || attrs.atime !== undefined)) {
      throw new Status(STATUS_CODE.PERMISSION_DENIED, 'Handle not open for writing');
    }
    await this.applyAttrs('', attrs, o.fh);
    this.ok(reqid);
  }

  private async setstat(reqid: number, path: string, attrs: Attributes): Promise<void> {
    const changes = attrs.size !== undefined || attrs.mtime !== undefined || attrs.atime !== undefined;
    const t = await this.target(path, changes ? 'write' : 'read');
    if (!t.rp.exists) throw new Status(STATUS_CODE.NO_SUCH_FILE, 'No such file');
    if (t.grant.remote) {
      if (attrs.size !== undefined) throw new Status(STATUS_CODE.OP_UNSUPPORTED, 'A remote storage cannot change a file in place');
      return this.ok(reqid);
    }
    await this.applyAttrs(t.rp.real, attrs);
    this.ok(reqid);
  }

  private async release(o: Open, report: boolean): Promise<void> {
    if (o.kind === 'remote') return this.releaseRemote(o, report);
    if (o.kind === 'dir') {
      await o.dir?.close().catch(() => undefined);
      return;
    }
    await o.fh.close().catch(() => undefined);
    if (o.write) {
      if (report || o.bytes > 0) this.d.counters.uploads++;
      this.d.access('put', o.path, report, o.bytes);
    } else if (o.bytes > 0) {
      this.d.counters.downloads++;
      this.d.access('get', o.path, report, o.bytes);
    }
  }

  private async close(reqid: number, h: Buffer): Promise<void> {
    const o = this.lookup(h);
    this.opens.delete(h.readUInt32BE(0));
    await this.release(o, true);
    this.ok(reqid);
  }

  private async openDir(reqid: number, path: string): Promise<void> {
    const mounts = this.d.rule().mounts;
    const virtual = normalise(path);
    if (!rootMount(mounts) && locate(virtual, mounts).kind === 'root') {
      // The mounts this user may see, as folders.
      const pending = mounts
        .filter((m) => this.d.storages.grant(this.d.who, m.storage))
        .map((m) => ({ filename: m.name, longname: longname(m.name, DIR_ATTRS), attrs: DIR_ATTRS }));
      return this.sftp.handle(reqid, this.handleOf({ kind: 'dir', path: '/', dir: null, real: null, pending }));
    }
    const t = await this.target(virtual, 'read');
    if (t.grant.remote) {
      const st = await t.grant.remote.stat(t.rp.path);
      if (!st) throw new Status(STATUS_CODE.NO_SUCH_FILE, 'No such file');
      if (st.kind !== 'dir') throw new Status(STATUS_CODE.FAILURE, 'Not a directory');
      const pending = (await t.grant.remote.list(t.rp.path)).map((e) => {
        const a = remoteAttrs(e);
        return { filename: e.name, longname: longname(e.name, a), attrs: a };
      });
      return this.sftp.handle(reqid, this.handleOf({ kind: 'dir', path: t.virtual, dir: null, real: null, pending }));
    }
    const s = await stat(t.rp.real);
    if (!s.isDirectory()) throw new Status(STATUS_CODE.FAILURE, 'Not a directory');
    const dir = await opendir(t.rp.real, { bufferSize: DIR_BATCH });
    this.sftp.handle(reqid, this.handleOf({ kind: 'dir', path: t.virtual, dir, real: t.rp.real, pending: null }));
  }

  private async readDir(reqid: number, h: Buffer): Promise<void> {
    const o = this.lookup(h);
    if (o.kind !== 'dir') throw new Status(STATUS_CODE.FAILURE, 'Not a directory handle');
    if (!o.dir) {
      const batch = o.pending?.splice(0, DIR_BATCH) ?? [];
      return batch.length ? this.sftp.name(reqid, batch) : this.sftp.status(reqid, STATUS_CODE.EOF);
    }
    const names: Dirent[] = [];
    while (names.length < DIR_BATCH) {
      const e = await o.dir.read();
      if (!e) break;
      if (!e.name.startsWith(STORAGE_TEMP_PREFIX)) names.push(e);
    }
    if (names.length === 0) return this.sftp.status(reqid, STATUS_CODE.EOF);
    const entries: FileEntry[] = [];
    for (const e of names) {
      // lstat: a link shows as a link (following it is resolve's decision when it is opened).
      const s = await lstat(`${o.real}/${e.name}`).catch(() => null);
      if (!s) continue;
      const a = attrsOf(s);
      entries.push({ filename: e.name, longname: longname(e.name, a), attrs: a });
    }
    if (entries.length === 0) return this.readDir(reqid, h);
    this.sftp.name(reqid, entries);
  }

  private async stat(reqid: number, path: string): Promise<void> {
    const mounts = this.d.rule().mounts;
    const virtual = normalise(path);
    if (!rootMount(mounts) && locate(virtual, mounts).kind === 'root') return this.sftp.attrs(reqid, DIR_ATTRS);
    const t = await this.target(virtual, 'read');
    if (!t.rp.exists) throw new Status(STATUS_CODE.NO_SUCH_FILE, 'No such file');
    if (t.grant.remote) {
      const st = await t.grant.remote.stat(t.rp.path);
      if (!st) throw new Status(STATUS_CODE.NO_SUCH_FILE, 'No such file');
      return this.sftp.attrs(reqid, remoteAttrs(st));
    }
    this.sftp.attrs(reqid, attrsOf(await stat(t.rp.real)));
  }

  private async remove(reqid: number, path: string): Promise<void> {
    const t = await this.target(path, 'delete');
    if (!t.rp.exists) throw new Status(STATUS_CODE.NO_SUCH_FILE, 'No such file');
    if (t.grant.remote) await t.grant.remote.remove(t.rp.path);
    else await unlink(t.rp.real);
    this.d.access('remove', t.virtual, true, 0);
    this.ok(reqid);
  }

  private async mkdir(reqid: number, path: string): Promise<void> {
    const t = await this.target(path, 'write');
    if (t.grant.remote) {
      if (t.rp.exists) throw new Status(STATUS_CODE.FAILURE, 'File exists');
      await t.grant.remote.mkdir(t.rp.path);
    } else await mkdir(t.rp.real);
    this.d.access('mkdir', t.virtual, true, 0);
    this.ok(reqid);
  }

  private async rmdir(reqid: number, path: string): Promise<void> {
    const t = await this.target(path, 'delete');
    if (!t.rp.exists) throw new Status(STATUS_CODE.NO_SUCH_FILE, 'No such file');
    if (t.grant.remote) {
      if ((await t.grant.remote.list(t.rp.path)).length > 0) throw new Status(STATUS_CODE.FAILURE, 'Directory not empty');
      await t.grant.remote.removeTree(t.rp.path);
    } else await rmdir(t.rp.real);
    this.d.access('rmdir', t.virtual, true, 0);
    this.ok(reqid);
  }

  private async readlink(reqid: number, path: string): Promise<void> {
    // resolve follows the link and refuses it when it leaves the storage; the client is told where
    // it lands as a path of its own tree, never a path of the daemon's disk.
    const t = await this.target(path, 'read');
    if (!t.rp.exists) throw new Status(STATUS_CODE.NO_SUCH_FILE, 'No such file');
    if (t.grant.remote) throw new Status(STATUS_CODE.FAILURE, 'Not a symbolic link');
    const root = t.rp.grant.root;
    const inner = t.rp.real === root ? '/' : t.rp.real.slice(root.length);
    const landing = virtualOf(t.mount, this.d.rule().mounts, inner);
    this.sftp.name(reqid, [{ filename: landing, longname: landing, attrs: {} as Attributes }]);
  }

  private async rename(reqid: number, from: string, to: string): Promise<void> {
    const a = await this.target(from, 'write');
    if (!a.rp.exists) throw new Status(STATUS_CODE.NO_SUCH_FILE, 'No such file');
    if (a.rp.path === '/') throw new Status(STATUS_CODE.PERMISSION_DENIED, 'Permission denied');
    const b = await this.target(to, 'write');
    if (b.grant.storage !== a.grant.storage) throw new Status(STATUS_CODE.OP_UNSUPPORTED, 'Cannot rename across storages');
    if (b.rp.exists) throw new Status(STATUS_CODE.FAILURE, 'File exists');
    if (a.grant.remote) await a.grant.remote.rename(a.rp.path, b.rp.path);
    else await rename(a.rp.real, b.rp.real);
    this.d.access('rename', `${a.virtual} → ${b.virtual}`, true, 0);
    this.ok(reqid);
  }

  // ------------------------------------------------------------------ remote storages

  private async openRemote(reqid: number, remote: RemoteFs, path: string, virtual: string, pflags: number): Promise<void> {
    const writing = (pflags & OPEN_MODE.WRITE) !== 0;
    const st = await remote.stat(path);
    let o: RemoteOpen;
    if (!writing) {
      if (!st) throw new Status(STATUS_CODE.NO_SUCH_FILE, 'No such file');
      if (st.kind !== 'file') throw new Status(STATUS_CODE.FAILURE, 'Not a regular file');
      o = { kind: 'remote', path: virtual, reader: new RemoteReader(remote, path, st.size), writer: null, bytes: 0 };
    } else {
      // A remote file is written whole: new, or replaced from its first byte.
      if (pflags & OPEN_MODE.READ || pflags & OPEN_MODE.APPEND || (st && !(pflags & OPEN_MODE.TRUNC))) {
        throw new Status(STATUS_CODE.OP_UNSUPPORTED, 'A remote storage cannot change a file in place');
      }
      if (st && pflags & OPEN_MODE.EXCL) throw new Status(STATUS_CODE.FAILURE, 'File exists');
      if (st?.kind === 'dir') throw new Status(STATUS_CODE.FAILURE, 'Is a directory');
      if (!st && !(pflags & OPEN_MODE.CREAT)) throw new Status(STATUS_CODE.NO_SUCH_FILE, 'No such file');
      o = { kind: 'remote', path: virtual, reader: null, writer: new RemoteWriter(remote, path), bytes: 0 };
    }
    const h = this.handleOf(o);
    if (this.closed) return void (await this.release(o, false));
    this.sftp.handle(reqid, h);
  }

  private async readRemote(reqid: number, o: RemoteOpen, offset: number, len: number): Promise<void> {
    if (!o.reader) throw new Status(STATUS_CODE.PERMISSION_DENIED, 'Handle not open for reading');
    const data = await o.reader.read(offset, Math.min(len, MAX_READ));
    if (data.length === 0) return this.sftp.status(reqid, STATUS_CODE.EOF);
    o.bytes += data.length;
    this.d.counters.bytesOut += data.length;
    this.sftp.data(reqid, data);
  }

  private async writeRemote(reqid: number, o: RemoteOpen, offset: number, data: Buffer): Promise<void> {
    if (!o.writer) throw new Status(STATUS_CODE.PERMISSION_DENIED, 'Handle not open for writing');
    try {
      await o.writer.write(offset, data);
    } catch (err) {
      if (err instanceof OutOfOrder) throw new Status(STATUS_CODE.OP_UNSUPPORTED, 'A remote storage takes a file\'s bytes in order only');
      throw err;
    }
    o.bytes += data.length;
    this.d.counters.bytesIn += data.length;
    this.ok(reqid);
  }

  /** Closed by the client (`report`): the upload becomes the file. Dropped with the session: it never does. */
  private async releaseRemote(o: RemoteOpen, report: boolean): Promise<void> {
    o.reader?.close();
    if (o.writer) {
      if (!report) {
        o.writer.abort();
        this.d.access('put', o.path, false, o.bytes);
        return;
      }
      await o.writer.finish();
      this.d.counters.uploads++;
      this.d.access('put', o.path, true, o.bytes);
    } else if (o.bytes > 0) {
      this.d.counters.downloads++;
      this.d.access('get', o.path, report, o.bytes);
    }
  }
}
