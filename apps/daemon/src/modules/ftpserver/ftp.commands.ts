/**
 * The FTP commands (RFC 959, 2228, 2389, 2428, 3659, 4217). Every path goes through
 * resolveTarget, that is through storages.resolve with the operation it needs; files are never
 * held in memory whole; an upload stops at the storage's quota. A file on a plain data connection
 * is moved by the native relay thread (sendfile / splice: its bytes never enter JavaScript); on a
 * TLS one, or without the addon, it is streamed with backpressure.
 */
import { constants as fsConstants } from 'node:fs';
import { lstat, mkdir, open, opendir, rename, rmdir, stat, truncate, unlink, type FileHandle } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { constants as osConstants } from 'node:os';
import { join } from 'node:path';
import { Readable, type Duplex } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isIPv4, isIPv6 } from '@lucky/contracts/runtime';
import { nativeFileReceive, nativeFileSend, nativeRelayAvailable, type NativeEnd, type NativeFlow } from '../../core/relay.js';
import { STORAGE_TEMP_PREFIX, type StorageOp } from '../../core/services/storages.js';
import { activeChannel, openPassive, parseEprt, parsePort, plainAddress } from './ftp.data.js';
import { entryOf, ftpTime, listLine, mlsxLine, sendable, virtualDir, type Entry } from './ftp.list.js';
import { joinVirtual, locate, parentOf, PathRefused, resolveTarget, type Target } from './ftp.paths.js';
import type { FtpSession } from './ftp.server.js';

type Handler = (s: FtpSession, arg: string) => Promise<void> | void;

/** Answered before login. */
export const PUBLIC_COMMANDS = new Set(['USER', 'PASS', 'AUTH', 'PBSZ', 'PROT', 'FEAT', 'SYST', 'QUIT', 'NOOP', 'OPTS', 'HELP']);
/** Answered at once while a transfer runs; every other command waits for the transfer to end. */
export const TRANSFER_SAFE = new Set(['ABOR', 'STAT', 'NOOP', 'QUIT']);

const FEATURES = ['UTF8', 'EPSV', 'EPRT', 'MLST type*;size*;modify*;perm*;', 'SIZE', 'MDTM', 'REST STREAM', 'TVFS', 'AUTH TLS', 'PBSZ', 'PROT'];
const READ_CHUNK = 1024 * 1024;

const quote = (p: string) => `"${p.replace(/"/g, '""')}"`;

class Reply extends Error {
  constructor(
    readonly code: number,
    readonly text: string,
  ) {
    super(text);
  }
}

/** A client's path, resolved and permitted, or a reply saying why not (denials are counted). */
async function target(s: FtpSession, arg: string, op: StorageOp): Promise<Target> {
  try {
    return await resolveTarget(s.server.deps.storages, s.who!, s.rule.mounts, joinVirtual(s.cwd, arg), op);
  } catch (err) {
    if (err instanceof PathRefused) {
      s.server.counters.denied++;
      throw new Reply(err.code, err.reason);
    }
    throw err;
  }
}

/** Runs a command whose refusals are thrown as Reply; the access log gets one line for it. */
function guarded(verb: string, fn: (s: FtpSession, arg: string) => Promise<{ code: number; text: string; path: string; bytes?: number } | void>, logged = true): Handler {
  return async (s, arg) => {
    try {
      const r = await fn(s, arg);
      if (!r) return;
      s.reply(r.code, r.text);
      if (logged) s.access(verb, r.path, r.code, r.bytes);
    } catch (err) {
      if (!(err instanceof Reply)) throw err;
      s.reply(err.code, err.text);
      if (logged) s.access(verb, joinVirtual(s.cwd, arg), err.code);
    } finally {
      // ABOR during this transfer: its own reply follows the transfer's.
      if (s.abortPending) {
        s.abortPending = false;
        s.reply(226, 'ABOR successful.');
      }
    }
  };
}

function fsReply(err: unknown): Reply {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new Reply(550, 'No such file or directory.');
  if (code === 'EEXIST') return new Reply(550, 'File exists.');
  if (code === 'ENOTEMPTY') return new Reply(550, 'Directory not empty.');
  if (code === 'ENOSPC' || code === 'EDQUOT') return new Reply(552, 'Exceeded storage allocation.');
  if (code === 'EACCES' || code === 'EPERM') return new Reply(550, 'Permission denied.');
  if (code === 'EISDIR' || code === 'ENOTDIR') return new Reply(550, 'Not a plain file.');
  return new Reply(451, 'Requested action aborted: local error in processing.');
}

// ------------------------------------------------------------------ login

async function user(s: FtpSession, arg: string): Promise<void> {
  if (s.who) return s.reply(530, 'Cannot change to another user.');
  if (s.rule.requireTls && !s.secure) {
    s.server.counters.denied++;
    return s.reply(530, 'Sessions must use encryption (AUTH TLS) before login.');
  }
  if (!arg) return s.reply(501, 'Syntax error in parameters or arguments.');
  s.pendingUser = arg.slice(0, 256);
  s.reply(331, 'Please specify the password.');
}

async function pass(s: FtpSession, arg: string): Promise<void> {
  if (s.who) return s.reply(230, 'Already logged in.');
  const account = s.pendingUser;
  s.pendingUser = null;
  if (account === null) return s.reply(503, 'Login with USER first.');
  const { storages, note } = s.server.deps;
  const anonymousName = /^(anonymous|ftp)$/i.test(account);
  const who = anonymousName
    ? s.rule.anonymous
      ? storages.anonymous()
      : null
    : await storages.login({ account, password: arg, ip: s.client, service: 'ftpserver' });
  if (!who) {
    s.server.counters.denied++;
    note({ key: 'ftpLoginFailed', vars: { client: s.client, account: account.slice(0, 64) } });
    // Slows down guessing on this connection; the lock-out (shared with the console) does the rest.
    await new Promise((r) => setTimeout(r, 500));
    return s.reply(530, 'Login incorrect.');
  }
  const max = s.rule.maxPerUser;
  if (s.server.sessionsOf(who.account) >= max) {
    s.server.counters.denied++;
    note({ key: 'ftpTooManyForUser', vars: { client: s.client, user: who.kind === 'anonymous' ? '(anonymous)' : who.account, max } });
    s.reply(421, 'Too many connections for this user.');
    s.sock.end();
    return;
  }
  s.who = who;
  note({ key: 'ftpLoggedIn', vars: { client: s.client, user: s.userName } });
  s.reply(230, 'Login successful.');
}

// ------------------------------------------------------------------ TLS

async function auth(s: FtpSession, arg: string): Promise<void> {
  const kind = arg.trim().toUpperCase();
  if (kind !== 'TLS' && kind !== 'SSL' && kind !== 'TLS-C') return s.reply(504, 'Unknown AUTH type.');
  if (s.rule.tls === 'off' || !s.server.tls) return s.reply(534, 'TLS is not available on this server.');
  if (s.secure) return s.reply(503, 'Already using TLS.');
  await s.upgrade();
}

function pbsz(s: FtpSession): void {
  if (!s.secure) return s.reply(503, 'PBSZ needs a secure control connection.');
  s.pbsz = true;
  s.reply(200, 'PBSZ=0');
}

function prot(s: FtpSession, arg: string): void {
  if (!s.secure) return s.reply(503, 'PROT needs a secure control connection.');
  const level = arg.trim().toUpperCase();
  if (level === 'P') {
    s.protectData = true;
    return s.reply(200, 'PROT now Private.');
  }
  if (level === 'C') {
    s.protectData = false;
    return s.reply(200, 'PROT now Clear.');
  }
  s.reply(level === 'S' || level === 'E' ? 536 : 504, 'PROT level not supported.');
}

// ------------------------------------------------------------------ directories

async function isDir(t: Target): Promise<boolean> {
  return t.rp.exists && (await stat(t.rp.real).catch(() => null))?.isDirectory() === true;
}

async function cwd(s: FtpSession, arg: string): Promise<void> {
  // `..` as the whole argument moves the virtual directory up; nowhere else is `..` taken.
  if (arg === '..' || arg === '../') {
    s.cwd = parentOf(s.cwd);
    return s.reply(250, 'Directory successfully changed.');
  }
  const virtual = joinVirtual(s.cwd, arg);
  const place = locate(virtual, s.rule.mounts);
  if (place.kind === 'root') {
    s.cwd = '/';
    return s.reply(250, 'Directory successfully changed.');
  }
  try {
    const t = await target(s, arg, 'read');
    if (!(await isDir(t))) return s.reply(550, 'Failed to change directory.');
    s.cwd = t.virtual;
    s.reply(250, 'Directory successfully changed.');
  } catch (err) {
    if (err instanceof Reply) return s.reply(err.code, err.text);
    throw err;
  }
}

const mkd = guarded('MKD', async (s, arg) => {
  const t = await target(s, arg, 'write');
  if (t.rp.path === '/' || t.rp.exists) throw new Reply(550, 'Create directory operation failed: it exists.');
  await mkdir(t.rp.real).catch((e: unknown) => Promise.reject(fsReply(e)));
  return { code: 257, text: `${quote(t.virtual)} created.`, path: t.virtual };
});

const rmd = guarded('RMD', async (s, arg) => {
  const t = await target(s, arg, 'delete');
  if (t.rp.path === '/') throw new Reply(550, 'Permission denied.');
  const st = await lstat(t.rp.real).catch(() => null);
  if (!st?.isDirectory()) throw new Reply(550, 'Remove directory operation failed.');
  await rmdir(t.rp.real).catch((e: unknown) => Promise.reject(fsReply(e)));
  if (s.cwd === t.virtual || s.cwd.startsWith(`${t.virtual}/`)) s.cwd = parentOf(t.virtual);
  return { code: 250, text: 'Remove directory operation successful.', path: t.virtual };
});

const dele = guarded('DELE', async (s, arg) => {
  const t = await target(s, arg, 'delete');
  const st = await lstat(t.rp.real).catch(() => null);
  if (!st) throw new Reply(550, 'No such file or directory.');
  if (st.isDirectory()) throw new Reply(550, 'Delete operation failed: it is a directory.');
  await unlink(t.rp.real).catch((e: unknown) => Promise.reject(fsReply(e)));
  return { code: 250, text: 'Delete operation successful.', path: t.virtual };
});

async function rnfr(s: FtpSession, arg: string): Promise<void> {
  s.renameFrom = null;
  try {
    const t = await target(s, arg, 'write');
    if (t.rp.path === '/' || !t.rp.exists) throw new Reply(550, 'RNFR command failed.');
    s.renameFrom = t;
    s.reply(350, 'Ready for RNTO.');
  } catch (err) {
    if (!(err instanceof Reply)) throw err;
    s.reply(err.code, err.text);
    s.access('RNFR', joinVirtual(s.cwd, arg), err.code);
  }
}

const rnto = guarded('RNTO', async (s, arg) => {
  const from = s.renameFrom;
  s.renameFrom = null;
  if (!from) throw new Reply(503, 'RNFR required first.');
  const to = await target(s, arg, 'write');
  if (to.rp.path === '/') throw new Reply(553, 'Rename failed.');
  if (to.grant.storage !== from.grant.storage) throw new Reply(553, 'Rename across storages is not possible.');
  // The source is checked again: a symlink swapped in since RNFR must not be followed now.
  const again = await target(s, from.virtual, 'write');
  if (!again.rp.exists) throw new Reply(550, 'RNFR source is gone.');
  const dst = await lstat(to.rp.real).catch(() => null);
  if (dst?.isDirectory()) throw new Reply(553, 'Rename failed: the target is a directory.');
  if ((await lstat(again.rp.real)).isDirectory() && (to.rp.real + '/').startsWith(again.rp.real + '/')) throw new Reply(553, 'Rename failed: a folder cannot move into itself.');
  await rename(again.rp.real, to.rp.real).catch((e: unknown) => Promise.reject(fsReply(e)));
  return { code: 250, text: 'Rename successful.', path: `${from.virtual} → ${to.virtual}` };
});

const size = guarded(
  'SIZE',
  async (s, arg) => {
    const t = await target(s, arg, 'read');
    const st = t.rp.exists ? await stat(t.rp.real).catch(() => null) : null;
    if (!st?.isFile()) throw new Reply(550, 'Could not get file size.');
    return { code: 213, text: String(st.size), path: t.virtual };
  },
  false,
);

const mdtm = guarded(
  'MDTM',
  async (s, arg) => {
    const t = await target(s, arg, 'read');
    const st = t.rp.exists ? await stat(t.rp.real).catch(() => null) : null;
    if (!st?.isFile()) throw new Reply(550, 'Could not get file modification time.');
    return { code: 213, text: ftpTime(st.mtime), path: t.virtual };
  },
  false,
);

// ------------------------------------------------------------------ listings

/** The entries of a folder; links are shown only when they stay inside the storage. */
async function* entries(s: FtpSession, t: Target): AsyncGenerator<Entry> {
  const dir = await opendir(t.rp.real, { bufferSize: 64 });
  for await (const d of dir) {
    if (!sendable(d.name) || d.name.startsWith(STORAGE_TEMP_PREFIX)) continue;
    const full = join(t.rp.real, d.name);
    if (d.isSymbolicLink()) {
      const inner = t.rp.path === '/' ? `/${d.name}` : `${t.rp.path}/${d.name}`;
      const ok = await s.server.deps.storages.resolve(t.grant, inner, 'read').catch(() => null);
      if (!ok) continue;
      const st = await stat(ok.real).catch(() => null);
      if (st) yield entryOf(d.name, st);
      continue;
    }
    const st = await lstat(full).catch(() => null);
    if (st) yield entryOf(d.name, st);
  }
}

/** What a listing shows: the mounts at the virtual root, a folder's entries, or one file. */
async function listingOf(s: FtpSession, arg: string): Promise<{ items: AsyncIterable<Entry> | Entry[]; target: Target | null; path: string; single: boolean }> {
  // `LIST -la`, `LIST -a dir`: options of ls that clients send; they change nothing here.
  const path = arg.replace(/^(-[A-Za-z]+\s*)+/, '');
  const virtual = joinVirtual(s.cwd, path);
  if (locate(virtual, s.rule.mounts).kind === 'root') {
    const grants = new Set(s.server.deps.storages.grants(s.who!).map((g) => g.storage));
    return { items: s.rule.mounts.filter((m) => grants.has(m.storage)).map((m) => virtualDir(m.name)), target: null, path: '/', single: false };
  }
  const t = await target(s, path, 'read');
  const st = t.rp.exists ? await stat(t.rp.real).catch(() => null) : null;
  if (!st) throw new Reply(550, 'No such file or directory.');
  if (!st.isDirectory()) return { items: [entryOf(t.virtual.slice(t.virtual.lastIndexOf('/') + 1), st)], target: t, path: t.virtual, single: true };
  return { items: entries(s, t), target: t, path: t.virtual, single: false };
}

async function* lines<T>(items: AsyncIterable<T> | T[], format: (e: T) => string): AsyncGenerator<string> {
  let batch = '';
  for await (const e of items) {
    batch += `${format(e)}\r\n`;
    if (batch.length > 16 * 1024) {
      yield batch;
      batch = '';
    }
  }
  if (batch) yield batch;
}

function listCommand(verb: 'LIST' | 'NLST' | 'MLSD'): Handler {
  return guarded(
    verb,
    async (s, arg) => {
      const l = await listingOf(s, arg);
      if (verb === 'MLSD' && l.single) throw new Reply(501, 'MLSD needs a directory.');
      const can = l.target?.grant.can ?? { read: true, write: false, delete: false };
      const now = Date.now();
      const format = verb === 'LIST' ? (e: Entry) => listLine(e, now) : verb === 'NLST' ? (e: Entry) => (l.single ? l.path : e.name) : (e: Entry) => mlsxLine(e, can);
      const body = Readable.from(lines(l.items, format));
      const bytes = await sendData(s, body, 'Here comes the directory listing.', false);
      return { code: 226, text: 'Directory send OK.', path: l.path, bytes };
    },
    false,
  );
}

const mlst = guarded(
  'MLST',
  async (s, arg) => {
    const virtual = joinVirtual(s.cwd, arg);
    if (locate(virtual, s.rule.mounts).kind === 'root') {
      s.replyLines(250, 'Listing /', [mlsxLine(virtualDir('/'), { read: true, write: false, delete: false }, 'cdir')], 'End.');
      return;
    }
    const t = await target(s, arg, 'read');
    const st = t.rp.exists ? await stat(t.rp.real).catch(() => null) : null;
    if (!st) throw new Reply(550, 'No such file or directory.');
    s.replyLines(250, `Listing ${t.virtual}`, [mlsxLine(entryOf(t.virtual, st), t.grant.can)], 'End.');
  },
  false,
);

async function statCommand(s: FtpSession, arg: string): Promise<void> {
  if (!arg || !s.who) {
    const lines = [
      `Connected to ${s.client}`,
      s.who ? `Logged in as ${s.userName}` : 'Not logged in',
      'TYPE: BINARY',
      s.secure ? `Control connection is encrypted; data ${s.protectData ? 'encrypted' : 'in clear'}` : 'Control connection is in clear',
      s.transfer ? 'A transfer is in progress' : 'No transfer in progress',
    ];
    return s.replyLines(211, 'FTP server status:', lines, 'End of status.');
  }
  if (s.transfer) return s.reply(213, 'A transfer is in progress.');
  try {
    const l = await listingOf(s, arg);
    const out: string[] = [];
    const now = Date.now();
    for await (const e of l.items) {
      out.push(listLine(e, now));
      if (out.length >= 10_000) break;
    }
    s.replyLines(213, 'Status follows:', out, 'End of status.');
  } catch (err) {
    if (err instanceof Reply) return s.reply(err.code, err.text);
    throw err;
  }
}

// ------------------------------------------------------------------ data connections

function pasv(s: FtpSession, extended: boolean): Handler {
  return async (_s, arg) => {
    if (extended && arg.trim().toUpperCase() === 'ALL') {
      s.epsvAll = true;
      return s.reply(200, 'EPSV ALL ok.');
    }
    if (!extended && s.epsvAll) return s.reply(503, 'PASV not allowed after EPSV ALL.');
    const local = plainAddress(s.sock.localAddress);
    let announce = local;
    if (!extended) {
      announce = (await s.server.deps.announce(s.client)) ?? local;
      if (!isIPv4(announce)) return s.reply(425, 'Use EPSV on IPv6.');
    }
    s.data?.close();
    s.data = null;
    const opened = await openPassive(s.server.ports, local, s.client);
    if (!opened) return s.reply(425, 'No passive port is free, try again later.');
    s.data = opened.channel;
    if (extended) return s.reply(229, `Entering Extended Passive Mode (|||${opened.port}|)`);
    s.reply(227, `Entering Passive Mode (${announce.split('.').join(',')},${opened.port >> 8},${opened.port & 255}).`);
  };
}

function active(s: FtpSession, host: string, port: number): void {
  if (s.epsvAll) return s.reply(503, 'PORT not allowed after EPSV ALL.');
  // Only the client itself: no FTP bounce to a third host, no other service on the client's host below 1024.
  if (plainAddress(host) !== s.client || port < 1024) {
    s.server.counters.denied++;
    return s.reply(500, 'Illegal PORT command.');
  }
  s.data?.close();
  s.data = activeChannel(host, port);
  s.reply(200, 'PORT command successful. Consider using PASV.');
}

/**
 * Opens the data connection after the 150 reply and sends `body` through it; the bytes sent.
 * Throws Reply for a connection that cannot be made or a transfer cut short.
 */
async function sendData(s: FtpSession, body: Readable, opening: string, download: boolean): Promise<number> {
  return pipeOut(s, await openData(s, opening), body, download);
}

/** Sends `body` through an open data connection; the bytes sent. */
async function pipeOut(s: FtpSession, sock: Duplex, body: Readable, download: boolean): Promise<number> {
  let bytes = 0;
  body.on('data', (c: Buffer | string) => (bytes += typeof c === 'string' ? Buffer.byteLength(c) : c.length));
  await runTransfer(s, sock, async (signal) => {
    await pipeline(body, sock, { signal });
  }, () => body.destroy());
  s.server.counters.bytesOut += bytes;
  if (download) s.server.counters.downloads++;
  return bytes;
}

/** `paused`: a plain connection is handed over unread, for the native relay (see DataChannel.open). */
async function openData(s: FtpSession, opening: string, paused = false): Promise<Duplex> {
  const ch = s.takeData();
  if (!ch) throw new Reply(425, 'Use PORT, PASV or EPSV first.');
  if (s.rule.requireTls && !s.protectData) {
    ch.close();
    throw new Reply(522, 'Data connections must be encrypted (PROT P).');
  }
  s.reply(150, opening);
  try {
    return await ch.open(s.protectData ? s.wrapData : null, paused);
  } catch {
    ch.close();
    throw new Reply(425, 'Failed to establish connection.');
  }
}

/** How long, and how much, an upload stopped at the quota may go on sending before its connection is cut. */
const REFUSED_DRAIN_MS = 2000;
const REFUSED_DRAIN_BYTES = 64 << 20;

/**
 * Ends the data connection of an upload stopped midway at the quota (552). Closing a socket with
 * bytes still unread makes the kernel answer RST, and a client still sending then reports
 * "connection reset" instead of the 552; so what it still sends is read and dropped, within bounds,
 * until it finishes or the bounds are reached.
 */
function drainThenClose(sock: Duplex): void {
  let left = REFUSED_DRAIN_BYTES;
  const timer = setTimeout(() => sock.destroy(), REFUSED_DRAIN_MS);
  sock.removeAllListeners('data');
  sock.on('data', (c: Buffer) => {
    left -= c.length;
    if (left <= 0) sock.destroy();
  });
  sock.once('end', () => sock.destroy());
  sock.once('close', () => clearTimeout(timer));
  sock.resume();
}

const isQuotaReply = (err: unknown) => err instanceof Reply && err.code === 552;

/** A transfer ABOR can stop: marks the session busy and turns an abort into the 426 reply. */
async function runTransfer(s: FtpSession, sock: Duplex, work: (signal: AbortSignal) => Promise<void>, cleanup: () => void): Promise<void> {
  const ctl = new AbortController();
  let aborted = false;
  s.transfer = {
    abort: () => {
      aborted = true;
      ctl.abort();
      cleanup();
      sock.destroy();
    },
  };
  try {
    await work(ctl.signal);
  } catch (err) {
    if (isQuotaReply(err)) drainThenClose(sock);
    else sock.destroy();
    cleanup();
    if (err instanceof Reply) throw err;
    if (aborted) throw new Reply(426, 'Connection closed; transfer aborted.');
    throw new Reply(426, 'Connection closed; transfer aborted.');
  } finally {
    s.transfer = null;
    s.touch();
  }
}

/**
 * Files on plain data connections go to the relay thread when the addon is there and not switched
 * off (LUCKY_NATIVE_RELAY=0). TLS data connections stay on streams: the bytes must pass through
 * OpenSSL. TYPE A changes nothing on either path (files are sent as they are).
 */
function nativeData(s: FtpSession): boolean {
  return s.server.deps.nativeData && !s.protectData && nativeRelayAvailable();
}

type Relayed = { end: NativeEnd | null; toTarget: number; toClient: number };

/**
 * Runs a file transfer on the relay thread: ABOR and the session's end take it back at once (end
 * null). Null when the relay would not take this socket; the caller then streams it. The data
 * socket is destroyed here, once the relay has let go of its descriptor.
 */
async function relayed(s: FtpSession, sock: Socket, start: (onEnd: (end: NativeEnd) => void) => NativeFlow | null): Promise<Relayed | null> {
  let settle!: (end: NativeEnd | null) => void;
  const ended = new Promise<NativeEnd | null>((r) => (settle = r));
  const flow = start((end) => settle(end));
  if (!flow) return null;
  let taken: { toTarget: number; toClient: number } | null = null;
  s.server.live.add(flow);
  s.transfer = {
    abort: () => {
      // remove() returns once the relay thread no longer uses either descriptor: closing is safe after it.
      taken ??= flow.remove();
      settle(null);
    },
  };
  let end: NativeEnd | null = null;
  try {
    end = await ended;
    const moved = taken ?? flow.counters();
    return { end, toTarget: moved.toTarget, toClient: moved.toClient };
  } finally {
    s.server.live.delete(flow);
    s.transfer = null;
    // The relay has let go of the descriptor: an upload stopped at its limit (the quota) ends as the
    // streamed one does.
    if (end?.reason === 'limit') drainThenClose(sock);
    else sock.destroy();
    s.touch();
  }
}

const retr = guarded('RETR', async (s, arg) => {
  const t = await target(s, arg, 'read');
  const offset = s.takeRest();
  const st = t.rp.exists ? await stat(t.rp.real).catch(() => null) : null;
  if (!st) throw new Reply(550, 'Failed to open file.');
  if (!st.isFile()) throw new Reply(550, 'Not a plain file.');
  if (offset > st.size) throw new Reply(554, 'Restart position beyond the end of the file.');
  // Opened before the 150: a file that cannot be read is said on the control connection.
  const file = await open(t.rp.real, 'r').catch((e: unknown) => Promise.reject(fsReply(e)));
  try {
    const native = nativeData(s);
    const sock = await openData(s, `Opening BINARY mode data connection for ${t.virtual.slice(t.virtual.lastIndexOf('/') + 1)} (${st.size - offset} bytes).`, native);
    const r = native ? await relayed(s, sock as Socket, (onEnd) => nativeFileSend(sock as Socket, file.fd, offset, 0, onEnd)) : null;
    if (!r) {
      if (native) sock.resume();
      // The stream closes the handle when it ends or is destroyed (a stream holds the handle open until then).
      const body = file.createReadStream({ start: offset, highWaterMark: READ_CHUNK });
      const bytes = await pipeOut(s, sock, body, true);
      return { code: 226, text: 'Transfer complete.', path: t.virtual, bytes };
    }
    s.server.counters.bytesOut += r.toClient;
    if (r.end?.reason !== 'closed') throw new Reply(426, 'Connection closed; transfer aborted.');
    s.server.counters.downloads++;
    return { code: 226, text: 'Transfer complete.', path: t.virtual, bytes: r.toClient };
  } finally {
    // After the transfer (or its abort) let go of it; close waits for a read still in flight.
    await file.close().catch(() => undefined);
  }
});

/**
 * STOR in JavaScript: the socket's bytes into the file from `start`, the socket paused while the
 * file lags behind (backpressure), never a byte past `budget`; the bytes written.
 */
async function receiveStream(s: FtpSession, sock: Duplex, file: FileHandle, start: number, budget: number): Promise<number> {
  // Closes the handle once finished or destroyed (a stream holds the handle open until then).
  const ws = file.createWriteStream({ start });
  let written = 0;
  let overQuota = false;
  await runTransfer(
    s,
    sock,
    (signal) =>
      new Promise<void>((resolve, reject) => {
        let failed = false;
        const fail = (e: unknown) => {
          if (failed) return;
          failed = true;
          reject(e);
        };
        sock.on('data', (chunk: Buffer) => {
          if (failed) return;
          if (written + chunk.length > budget) {
            overQuota = true;
            return fail(new Reply(552, 'Exceeded storage allocation.'));
          }
          written += chunk.length;
          s.server.counters.bytesIn += chunk.length;
          if (!ws.write(chunk)) sock.pause();
        });
        ws.on('drain', () => sock.resume());
        ws.on('error', fail);
        sock.on('error', fail);
        signal.addEventListener('abort', () => fail(new Error('aborted')));
        sock.on('end', () => {
          if (failed) return;
          ws.end();
          ws.once('finish', () => resolve());
        });
        sock.on('close', () => {
          // Closed without a clean end: the client went away mid-transfer.
          if (!sock.readableEnded) fail(new Error('data connection closed'));
        });
      }),
    () => ws.destroy(),
  ).catch((err: unknown) => {
    if (overQuota) throw new Reply(552, 'Exceeded storage allocation.');
    throw err;
  });
  return written;
}

const { ENOSPC, EDQUOT } = osConstants.errno;

function store(verb: 'STOR' | 'APPE'): Handler {
  return guarded(verb, async (s, arg) => {
    const t = await target(s, arg, 'write');
    const append = verb === 'APPE';
    const offset = s.takeRest();
    if (t.rp.path === '/') throw new Reply(553, 'Could not create file.');
    const st = t.rp.exists ? await lstat(t.rp.real).catch(() => null) : null;
    if (st?.isDirectory()) throw new Reply(553, 'Could not create file: it is a directory.');
    const existing = st?.size ?? 0;
    if (!append && offset > existing) throw new Reply(554, 'Restart position beyond the end of the file.');
    const room = await s.server.deps.storages.room(t.grant);
    // Bytes the upload may add: what is free, plus what it overwrites.
    const budget = room + (append ? 0 : existing - offset);
    if (budget <= 0 && Number.isFinite(room)) throw new Reply(552, 'Exceeded storage allocation.');
    if (offset > 0 && !append) await truncate(t.rp.real, offset).catch((e: unknown) => Promise.reject(fsReply(e)));
    const native = nativeData(s);
    // splice(2) refuses a file opened for appending (EINVAL): on the relay, APPE writes from the
    // file's size when the upload starts instead.
    const flags = append ? (native ? fsConstants.O_WRONLY | fsConstants.O_CREAT : 'a') : offset > 0 ? 'r+' : 'w';
    // Opened before the 150, as for RETR.
    const file = await open(t.rp.real, flags).catch((e: unknown) => Promise.reject(fsReply(e)));
    try {
      const start = append ? (await file.stat()).size : offset;
      const sock = await openData(s, `Ok to send data.`, native);
      const r = native ? await relayed(s, sock as Socket, (onEnd) => nativeFileReceive(sock as Socket, file.fd, start, budget, 0, onEnd)) : null;
      let written: number;
      if (r) {
        written = r.toTarget;
        s.server.counters.bytesIn += written;
        if (r.end?.reason === 'limit' || (r.end?.reason === 'error' && (r.end.errno === ENOSPC || r.end.errno === EDQUOT))) {
          throw new Reply(552, 'Exceeded storage allocation.');
        }
        if (r.end?.reason !== 'closed') throw new Reply(426, 'Connection closed; transfer aborted.');
      } else {
        if (native) sock.resume();
        written = await receiveStream(s, sock, file, start, budget);
      }
      s.server.counters.uploads++;
      return { code: 226, text: 'Transfer complete.', path: t.virtual, bytes: written };
    } finally {
      // Closed before the 226 (close waits for a write still in flight): the client may read the file at once.
      await file.close().catch(() => undefined);
    }
  });
}

// ------------------------------------------------------------------ the table

export const COMMANDS: Record<string, Handler> = {
  USER: user,
  PASS: pass,
  AUTH: auth,
  PBSZ: pbsz,
  PROT: prot,
  QUIT: (s) => s.quit(),
  NOOP: (s) => s.reply(200, 'NOOP ok.'),
  SYST: (s) => s.reply(215, 'UNIX Type: L8'),
  FEAT: (s) => s.replyLines(211, 'Features:', FEATURES, 'End'),
  OPTS: (s, arg) => {
    const [name, value] = arg.trim().split(/\s+/);
    const n = (name ?? '').toUpperCase();
    if (n === 'UTF8' || n === 'UTF-8') return s.reply(200, (value ?? 'ON').toUpperCase() === 'OFF' ? 'UTF8 is always on.' : 'Always in UTF8 mode.');
    if (n === 'MLST') return s.reply(200, 'MLST OPTS type;size;modify;perm;');
    s.reply(501, 'Option not understood.');
  },
  HELP: (s) =>
    s.replyLines(214, 'The following commands are recognized.', [Object.keys(COMMANDS).join(' ')], 'Help OK.'),
  PWD: (s) => s.reply(257, `${quote(s.cwd)} is the current directory`),
  XPWD: (s) => s.reply(257, `${quote(s.cwd)} is the current directory`),
  CWD: cwd,
  XCWD: cwd,
  CDUP: (s) => cwd(s, '..'),
  XCUP: (s) => cwd(s, '..'),
  TYPE: (s, arg) => {
    const t = arg.trim().toUpperCase().replace(/\s+/g, ' ');
    if (t === 'I' || t === 'L 8') return s.reply(200, 'Switching to Binary mode.');
    // ASCII is accepted and sent as is: clients of today ask for it for listings only.
    if (t === 'A' || t === 'A N') return s.reply(200, 'Switching to ASCII mode.');
    s.reply(504, 'Unrecognised TYPE command.');
  },
  MODE: (s, arg) => (arg.trim().toUpperCase() === 'S' ? s.reply(200, 'Mode set to S.') : s.reply(504, 'Bad MODE command.')),
  STRU: (s, arg) => (arg.trim().toUpperCase() === 'F' ? s.reply(200, 'Structure set to F.') : s.reply(504, 'Bad STRU command.')),
  ALLO: (s) => s.reply(202, 'ALLO command ignored.'),
  REST: (s, arg) => {
    const n = Number(arg.trim());
    if (!/^\d+$/.test(arg.trim()) || !Number.isSafeInteger(n)) return s.reply(501, 'REST needs a byte offset.');
    s.rest = n;
    s.reply(350, `Restart position accepted (${n}).`);
  },
  PASV: (s, arg) => pasv(s, false)(s, arg),
  EPSV: (s, arg) => pasv(s, true)(s, arg),
  PORT: (s, arg) => {
    const p = parsePort(arg);
    if (!p) return s.reply(501, 'Illegal PORT command.');
    active(s, p.host, p.port);
  },
  EPRT: (s, arg) => {
    const p = parseEprt(arg.trim());
    if (!p || (p.family === 1 ? !isIPv4(p.host) : !isIPv6(p.host))) return s.reply(p ? 501 : 522, 'Bad EPRT command; use (1,2).');
    active(s, p.host, p.port);
  },
  LIST: listCommand('LIST'),
  NLST: listCommand('NLST'),
  MLSD: listCommand('MLSD'),
  MLST: mlst,
  STAT: statCommand,
  RETR: retr,
  STOR: store('STOR'),
  APPE: store('APPE'),
  DELE: dele,
  RNFR: rnfr,
  RNTO: rnto,
  MKD: mkd,
  XMKD: mkd,
  RMD: rmd,
  XRMD: rmd,
  SIZE: size,
  MDTM: mdtm,
  ABOR: (s) => {
    if (!s.transfer) {
      s.data?.close();
      s.data = null;
      return s.reply(225, 'No transfer to abort.');
    }
    // The transfer's own reply (426) comes first, then this one (sent by the transfer's command).
    s.abortPending = true;
    s.transfer.abort();
  },
};
