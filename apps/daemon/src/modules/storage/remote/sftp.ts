/**
 * An SFTP server as a storage (OpenSSH's sftp-server, a NAS, another Lucky): one SSH connection
 * per storage with one SFTP channel, opened at the first request and again after it drops (a
 * request while the server is away fails alone; the next one after it is back connects again).
 * The server's host key is pinned: its SHA256 fingerprint must be the one stored, else the
 * connection is refused before any credential is sent (an empty pin is refused too, the
 * fingerprint seen handed to "test connection" so the form can pin it). Login by password or
 * private key. `root` on the server is the storage's root.
 *
 * An upload is written to a temporary name in the same folder and renamed over the name when
 * complete (posix-rename@openssh.com where the server offers it, which replaces atomically; else
 * remove then rename), so an interrupted one never shows as the file. Writes are pipelined (a few
 * packets in flight, the body read as they are acknowledged), never held whole in memory.
 */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Msg, RemoteSftp } from '@lucky/contracts';
import ssh2, { type ConnectConfig, type FileEntryWithStats, type SFTPWrapper, type Stats } from 'ssh2';
import { STORAGE_TEMP_PREFIX, type RemoteEntry, type RemoteFs, type RemoteStat } from '../../../core/services/storages.js';
import { MsgError } from '../../../lib/msgerror.js';
import { fingerprintOf } from '../../../lib/sshfingerprint.js';
import { remoteDown } from './down.js';
import type { RemoteSeen } from './index.js';

const { Client } = ssh2;

/** SFTP status codes (draft-ietf-secsh-filexfer-02). */
const NO_SUCH_FILE = 2;
/** Write requests in flight per upload (each up to the server's packet size, 32–256 KiB). */
const WRITES_IN_FLIGHT = 8;
/** Requests at a time when a listing stats its symlinks or a tree is removed. */
const PARALLEL = 8;
const READY_TIMEOUT_MS = 10_000;
/** A download's read requests: this many bytes each, this many in flight (one at a time costs a round trip per 64 KiB). */
const READ_CHUNK = 64 * 1024;
const READS_IN_FLIGHT = 8;

interface Session {
  client: InstanceType<typeof Client>;
  sftp: SFTPWrapper;
}

type SftpError = Error & { code?: number | string; level?: string };

/** A request whose answer does not matter (closing a handle, sweeping a temp file); ssh2 throws when the channel is gone. */
function quietly(fn: () => void): void {
  try {
    fn();
  } catch {
    // the channel is gone, and what was open in it
  }
}

const isMissing = (err: unknown) => (err as SftpError)?.code === NO_SUCH_FILE;

/** Runs `fn` over `items`, `n` at a time; the first failure rejects once the others settle. */
async function eachLimited<T>(items: T[], n: number, fn: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: unknown = null;
  const worker = async () => {
    while (next < items.length && failure === null) {
      const t = items[next++]!;
      try {
        await fn(t);
      } catch (err) {
        failure ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  if (failure !== null) throw failure;
}

export class RemoteSftpFs implements RemoteFs {
  private session: Promise<Session> | null = null;
  /** The client of `session`: its close drops the session. */
  private client: InstanceType<typeof Client> | null = null;
  private closed = false;
  /** Temp names an upload could not remove (the connection was gone): removed at the next connection. */
  private readonly leftovers = new Set<string>();

  constructor(
    private readonly name: string,
    private readonly cfg: RemoteSftp,
    private readonly seen: RemoteSeen = { hostKey: '' },
  ) {}

  async close(): Promise<void> {
    this.closed = true;
    const s = this.session;
    this.session = null;
    if (s) await s.then((x) => x.client.end(), () => undefined);
  }

  // ------------------------------------------------------------------ connection

  private down(detail: Msg | string): MsgError {
    return remoteDown(this.name, detail);
  }

  /** A failure of a request as the storage's error: a missing name, or the remote's own words. */
  private failed(err: unknown): Error {
    if (err instanceof MsgError) return err;
    if (isMissing(err)) return new MsgError({ key: 'storageNotFound' });
    return this.down(err instanceof Error ? err.message : String(err));
  }

  private connect(): Promise<Session> {
    return new Promise<Session>((resolve, reject) => {
      const client = new Client();
      let refused: MsgError | null = null;
      let settled = false;
      const fail = (err: unknown) => {
        if (settled) return;
        settled = true;
        client.end();
        reject(refused ?? this.down(err instanceof Error ? err.message : String(err)));
      };
      const pinned = this.cfg.hostKey.trim();
      const config: ConnectConfig = {
        host: this.cfg.host,
        port: this.cfg.port,
        username: this.cfg.username,
        readyTimeout: READY_TIMEOUT_MS,
        // A server that stops answering (a cable pulled) is noticed within 30 s, not at the next TCP timeout.
        keepaliveInterval: 10_000,
        keepaliveCountMax: 3,
        // Checked before any credential is sent: a server with another key never sees the password.
        hostVerifier: (key: Buffer) => {
          const fp = fingerprintOf(key);
          this.seen.hostKey = fp;
          if (pinned !== '' && fp === pinned) return true;
          refused = pinned === '' ? new MsgError({ key: 'sftpRemoteHostKeyNeeded' }) : new MsgError({ key: 'storageRemoteHostKey', vars: { seen: fp, pinned } });
          return false;
        },
      };
      if (this.cfg.privateKey) config.privateKey = this.cfg.privateKey;
      if (this.cfg.password) config.password = this.cfg.password;
      client.on('error', fail);
      client.on('close', () => {
        fail(new Error('connection closed'));
        // Dropped: the next request connects again.
        if (this.client === client) {
          this.client = null;
          this.session = null;
        }
      });
      client.on('ready', () => {
        // Each SFTP request is a small packet answered before the next: without this, Nagle's
        // algorithm and the peer's delayed ACK held many of them back by 40 ms each.
        client.setNoDelay(true);
        client.sftp((err, sftp) => {
          if (err) return fail(err);
          if (settled) return;
          settled = true;
          // The channel closed under us (the server's sftp-server killed): drop the whole connection.
          sftp.on('close', () => client.end());
          resolve({ client, sftp });
        });
      });
      this.client = client;
      try {
        client.connect(config);
      } catch (err) {
        // A private key ssh2 cannot read is thrown here, before any socket is opened.
        fail(new Error(`private key: ${err instanceof Error ? err.message : String(err)}`));
      }
    });
  }

  /** The connection, opened when there is none (or the last one dropped). */
  private async sftp(): Promise<SFTPWrapper> {
    if (this.closed) throw this.down('closed');
    if (!this.session) {
      const p = this.connect();
      this.session = p;
      p.then(
        (s) => this.sweep(s.sftp),
        () => {
          if (this.session === p) this.session = null;
        },
      );
    }
    return (await this.session).sftp;
  }

  /** Removes the temp files of uploads cut off with their connection. */
  private sweep(sftp: SFTPWrapper): void {
    for (const t of [...this.leftovers]) {
      this.leftovers.delete(t);
      quietly(() => sftp.unlink(t, () => undefined));
    }
  }

  /** One request: the callback's error as the storage's. */
  private async call<T>(fn: (sftp: SFTPWrapper, cb: (err: Error | null | undefined, v?: T) => void) => void): Promise<T> {
    const sftp = await this.sftp();
    return new Promise<T>((resolve, reject) => {
      try {
        fn(sftp, (err, v) => (err ? reject(this.failed(err)) : resolve(v as T)));
      } catch (err) {
        // ssh2 throws when the channel is already gone.
        reject(this.failed(err));
      }
    });
  }

  // ------------------------------------------------------------------ paths

  /** The server's path of a clean storage path, under `root`. */
  private full(path: string): string {
    const segs = path.split('/').filter((s) => s !== '');
    if (segs.some((s) => s === '..' || s === '.' || s.includes('\0'))) throw new MsgError({ key: 'storageNotFound' });
    const root = this.cfg.root.trim();
    // A relative root is the login's home directory's; '' is the home directory itself.
    const base = root === '' ? '.' : root === '/' ? '' : root.replace(/\/+$/, '');
    if (segs.length === 0) return base === '' ? '/' : base;
    return `${base}/${segs.join('/')}`;
  }

  private static statOf(a: Stats): RemoteStat {
    const dir = a.isDirectory();
    return { kind: dir ? 'dir' : 'file', size: dir ? 0 : Number(a.size ?? 0), mtimeMs: Number(a.mtime ?? 0) * 1000 };
  }

  // ------------------------------------------------------------------ RemoteFs

  async stat(path: string): Promise<RemoteStat | null> {
    try {
      const a = await this.call<Stats>((s, cb) => s.stat(this.full(path), cb));
      return RemoteSftpFs.statOf(a);
    } catch (err) {
      if (err instanceof MsgError && err.msg.key === 'storageNotFound') return null;
      throw err;
    }
  }

  async list(path: string): Promise<RemoteEntry[]> {
    const dir = this.full(path);
    const entries = await this.call<FileEntryWithStats[]>((s, cb) => s.readdir(dir, cb));
    const out: RemoteEntry[] = [];
    const links: FileEntryWithStats[] = [];
    for (const e of entries) {
      if (e.filename === '.' || e.filename === '..' || e.filename.startsWith(STORAGE_TEMP_PREFIX)) continue;
      if (e.attrs.isSymbolicLink()) links.push(e);
      else out.push({ name: e.filename, ...RemoteSftpFs.statOf(e.attrs) });
    }
    // A symlink is what it points to (one on the server that leads nowhere is left out).
    await eachLimited(links, PARALLEL, async (e) => {
      const st = await this.stat(`${path === '/' ? '' : path}/${e.filename}`);
      if (st) out.push({ name: e.filename, ...st });
    });
    return out;
  }

  /** An SFTP file's bytes come as SSH packets to decrypt: there is no plain body to pass on. */
  readRaw(): Promise<null> {
    return Promise.resolve(null);
  }

  async read(path: string, range?: { start: number; end?: number }): Promise<NodeJS.ReadableStream> {
    const full = this.full(path);
    const sftp = await this.sftp();
    const handle = await this.call<Buffer>((s, cb) => s.open(full, 'r', cb));
    return new SftpReadStream(sftp, handle, range?.start ?? 0, range?.end !== undefined ? range.end + 1 : Infinity, (err) => this.failed(err));
  }

  async write(path: string, body: NodeJS.ReadableStream, _size?: number): Promise<void> {
    const full = this.full(path);
    const temp = `${full.slice(0, full.lastIndexOf('/') + 1)}${STORAGE_TEMP_PREFIX}${randomBytes(6).toString('hex')}`;
    const sftp = await this.sftp();
    const handle = await this.call<Buffer>((s, cb) => s.open(temp, 'w', cb));
    let open = true;
    try {
      await this.pump(sftp, handle, body);
      open = false;
      await this.call<void>((s, cb) => s.close(handle, cb));
      await this.replace(temp, full);
    } catch (err) {
      (body as Readable).destroy?.();
      if (open) quietly(() => sftp.close(handle, () => undefined));
      await this.call<void>((s, cb) => s.unlink(temp, cb)).catch(() => this.leftovers.add(temp));
      throw this.failed(err);
    }
  }

  /** The body into the open handle, a few writes in flight, the body read as they are acknowledged. */
  private async pump(sftp: SFTPWrapper, handle: Buffer, body: NodeJS.ReadableStream): Promise<void> {
    let pos = 0;
    let failure: unknown = null;
    const inFlight = new Set<Promise<void>>();
    for await (const chunk of body as AsyncIterable<Buffer | string>) {
      if (failure !== null) break;
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (buf.length === 0) continue;
      const at = pos;
      pos += buf.length;
      const p = new Promise<void>((resolve) => {
        try {
          sftp.write(handle, buf, 0, buf.length, at, (err) => {
            if (err) failure ??= err;
            resolve();
          });
        } catch (err) {
          failure ??= err;
          resolve();
        }
      });
      inFlight.add(p);
      void p.then(() => inFlight.delete(p));
      if (inFlight.size >= WRITES_IN_FLIGHT) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    if (failure !== null) throw failure;
  }

  /** `from` renamed over `to` (which may exist). */
  private async replace(from: string, to: string): Promise<void> {
    const sftp = await this.sftp();
    let posix = true;
    try {
      await new Promise<void>((resolve, reject) => {
        try {
          sftp.ext_openssh_rename(from, to, (err) => (err ? reject(err) : resolve()));
        } catch (err) {
          // Not offered by this server (ssh2 throws before sending).
          posix = false;
          resolve();
        }
      });
    } catch (err) {
      throw this.failed(err);
    }
    if (posix) return;
    // SFTP v3's RENAME refuses an existing target: remove it first (a short window without the file).
    try {
      await this.call<void>((s, cb) => s.rename(from, to, cb));
    } catch (err) {
      if (!(await this.stat2(to))) throw err;
      await this.call<void>((s, cb) => s.unlink(to, cb));
      await this.call<void>((s, cb) => s.rename(from, to, cb));
    }
  }

  /** Whether a server path exists. */
  private async stat2(full: string): Promise<boolean> {
    return this.call<Stats>((s, cb) => s.lstat(full, cb)).then(
      () => true,
      () => false,
    );
  }

  async mkdir(path: string): Promise<void> {
    await this.call<void>((s, cb) => s.mkdir(this.full(path), cb));
  }

  async remove(path: string): Promise<void> {
    await this.call<void>((s, cb) => s.unlink(this.full(path), cb));
  }

  async removeTree(path: string): Promise<void> {
    const full = this.full(path);
    let st: Stats;
    try {
      st = await this.call<Stats>((s, cb) => s.lstat(full, cb));
    } catch (err) {
      if (err instanceof MsgError && err.msg.key === 'storageNotFound') return;
      throw err;
    }
    if (!st.isDirectory()) return this.remove(path);
    await this.removeDir(full);
  }

  /** A server folder and everything in it, depth first (symlinks removed, never followed). */
  private async removeDir(full: string): Promise<void> {
    const entries = await this.call<FileEntryWithStats[]>((s, cb) => s.readdir(full, cb));
    const subdirs = entries.filter((e) => e.filename !== '.' && e.filename !== '..' && e.attrs.isDirectory());
    const files = entries.filter((e) => e.filename !== '.' && e.filename !== '..' && !e.attrs.isDirectory());
    await eachLimited(files, PARALLEL, (e) => this.call<void>((s, cb) => s.unlink(`${full}/${e.filename}`, cb)));
    for (const d of subdirs) await this.removeDir(`${full}/${d.filename}`);
    await this.call<void>((s, cb) => s.rmdir(full, cb));
  }

  async rename(from: string, to: string): Promise<void> {
    const st = await this.stat(from);
    if (!st) throw new MsgError({ key: 'storageNotFound' });
    await this.replace(this.full(from), this.full(to));
  }
}

/**
 * A file's bytes from `pos` up to `limit` (exclusive), with a few read requests in flight, pushed
 * in order as the reader takes them. A short read (allowed by the protocol before the end) drops
 * the requests beyond it and goes on from where it stopped; an empty one is the end of the file.
 */
class SftpReadStream extends Readable {
  private next: number;
  private readonly queue: { at: number; len: number; done: Promise<{ err: unknown; data: Buffer | null }> }[] = [];
  private pumping = false;
  private ended = false;

  constructor(
    private readonly sftp: SFTPWrapper,
    private readonly handle: Buffer,
    private pos: number,
    private readonly limit: number,
    private readonly failed: (err: unknown) => Error,
  ) {
    super({ highWaterMark: READ_CHUNK * 2 });
    this.next = pos;
  }

  private request(at: number, len: number): void {
    const done = new Promise<{ err: unknown; data: Buffer | null }>((resolve) => {
      try {
        this.sftp.read(this.handle, Buffer.allocUnsafe(len), 0, len, at, (err, n, buf) => resolve(err ? { err, data: null } : { err: null, data: buf.subarray(0, n) }));
      } catch (err) {
        resolve({ err, data: null });
      }
    });
    this.queue.push({ at, len, done });
  }

  override _read(): void {
    if (this.pumping || this.ended) return;
    this.pumping = true;
    void this.pump().finally(() => (this.pumping = false));
  }

  private async pump(): Promise<void> {
    for (;;) {
      while (this.queue.length < READS_IN_FLIGHT && this.next < this.limit) {
        const len = Math.min(READ_CHUNK, this.limit - this.next);
        this.request(this.next, len);
        this.next += len;
      }
      const head = this.queue.shift();
      if (!head) return this.finish(null);
      const { err, data } = await head.done;
      if (this.destroyed) return;
      // EOF comes as an error of code 1 in ssh2 (SSH_FX_EOF), or as an empty read.
      if ((err as { code?: number } | null)?.code === 1 || (data && data.length === 0)) return this.finish(null);
      if (err) return this.finish(err);
      this.pos += data!.length;
      if (data!.length < head.len) {
        // Short: what was asked beyond it is asked again from here.
        this.queue.length = 0;
        this.next = this.pos;
      }
      if (!this.push(data)) return;
    }
  }

  private finish(err: unknown): void {
    this.ended = true;
    quietly(() => this.sftp.close(this.handle, () => undefined));
    if (err) this.destroy(this.failed(err));
    else this.push(null);
  }

  override _destroy(err: Error | null, cb: (err: Error | null) => void): void {
    if (!this.ended) {
      this.ended = true;
      quietly(() => this.sftp.close(this.handle, () => undefined));
    }
    cb(err);
  }
}
