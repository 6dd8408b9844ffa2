/**
 * Data connections (RFC 959, 2428): PASV/EPSV and PORT/EPRT set one up, a transfer opens it after
 * the 150 reply and runs so that ABOR can stop it, on streams or on the native relay thread.
 */
import type { Socket } from 'node:net';
import type { Duplex, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isIPv4 } from '@lucky/contracts/runtime';
import { nativeRelayAvailable, type NativeEnd, type NativeFlow } from '../../core/relay.js';
import { activeChannel, openPassive, plainAddress } from './ftp.data.js';
import { Reply, type Handler } from './ftp.reply.js';
import type { FtpSession } from './ftp.server.js';

export function pasv(s: FtpSession, extended: boolean): Handler {
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

export function active(s: FtpSession, host: string, port: number): void {
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
export async function sendData(s: FtpSession, body: Readable, opening: string, download: boolean): Promise<number> {
  return pipeOut(s, await openData(s, opening), body, download);
}

/** Sends `body` through an open data connection; the bytes sent. */
export async function pipeOut(s: FtpSession, sock: Duplex, body: Readable, download: boolean): Promise<number> {
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
export async function openData(s: FtpSession, opening: string, paused = false): Promise<Duplex> {
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
export function drainThenClose(sock: Duplex): void {
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
export async function runTransfer(s: FtpSession, sock: Duplex, work: (signal: AbortSignal) => Promise<void>, cleanup: () => void): Promise<void> {
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
export function nativeData(s: FtpSession): boolean {
  return s.server.deps.nativeData && !s.protectData && nativeRelayAvailable();
}

type Relayed = { end: NativeEnd | null; toTarget: number; toClient: number };

/**
 * Runs a file transfer on the relay thread: ABOR and the session's end take it back at once (end
 * null). Null when the relay would not take this socket; the caller then streams it. The data
 * socket is destroyed here, once the relay has let go of its descriptor.
 */
export async function relayed(s: FtpSession, sock: Socket, start: (onEnd: (end: NativeEnd) => void) => NativeFlow | null): Promise<Relayed | null> {
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
