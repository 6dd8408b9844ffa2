/**
 * File transfers: RETR, STOR and APPE (with REST). A local file on a plain data connection is moved
 * by the native relay thread (sendfile / splice: its bytes never enter JavaScript); on a TLS one, or
 * without the addon, it is streamed with backpressure. An upload stops at the storage's quota. A
 * remote storage's file is streamed both ways (ftp.storage.ts opens it either way), but a large
 * download from a remote on plain http to a plain data connection, which the relay passes on.
 */
import type { FileHandle } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { constants as osConstants } from 'node:os';
import type { Duplex } from 'node:stream';
import type { PassedBody } from '../../core/filebody.js';
import { nativeFileReceive, nativeFileSend, nativePass, socketFd } from '../../core/relay.js';
import { MsgError } from '../../lib/msgerror.js';
import { fsReply, guarded, Reply, target, type Handler } from './ftp.reply.js';
import type { FtpSession } from './ftp.server.js';
import { openDownload, openUpload, statOf, type RemoteUpload } from './ftp.storage.js';
import { nativeData, openData, pipeOut, relayed, runTransfer } from './ftp.transfer.js';

const READ_CHUNK = 1024 * 1024;

export const retr = guarded('RETR', async (s, arg) => {
  const t = await target(s, arg, 'read');
  const offset = s.takeRest();
  const st = await statOf(t);
  if (!st) throw new Reply(550, 'Failed to open file.');
  if (!st.isFile()) throw new Reply(550, 'Not a plain file.');
  if (offset > st.size) throw new Reply(554, 'Restart position beyond the end of the file.');
  // Opened before the 150: a file that cannot be read is said on the control connection.
  const opened = await openDownload(t, offset, st.size, nativeData(s));
  const opening = `Opening BINARY mode data connection for ${t.virtual.slice(t.virtual.lastIndexOf('/') + 1)} (${st.size - offset} bytes).`;
  if (opened.raw) {
    const { raw, length } = opened;
    try {
      return await passRemote(s, t.virtual, raw, length, opening);
    } finally {
      raw.socket.destroy();
    }
  }
  if (opened.stream) {
    // A remote's bytes, streamed from the offset.
    const sock = await openData(s, opening).catch((e: unknown) => {
      opened.stream.destroy();
      throw e;
    });
    const bytes = await pipeOut(s, sock, opened.stream, true);
    return { code: 226, text: 'Transfer complete.', path: t.virtual, bytes };
  }
  const file = opened.file;
  try {
    const native = nativeData(s);
    const sock = await openData(s, opening, native);
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
 * RETR of a remote's range left unread on its own connection: the bytes that came with its head
 * written first, the rest passed to the data connection by the relay thread.
 */
async function passRemote(s: FtpSession, path: string, raw: PassedBody, length: number, opening: string): Promise<{ code: number; text: string; path: string; bytes: number }> {
  const sock = (await openData(s, opening, true)) as Socket;
  if (raw.head.length > 0) await new Promise<void>((resolve) => sock.write(raw.head, () => resolve()));
  const srcFd = socketFd(raw.socket);
  const dstFd = socketFd(sock);
  const rest = length - raw.head.length;
  const r = srcFd >= 0 && dstFd >= 0 && !sock.destroyed ? await relayed(s, sock, (onEnd) => nativePass(srcFd, dstFd, rest, 0, onEnd)) : null;
  if (!r) {
    sock.destroy();
    throw new Reply(426, 'Connection closed; transfer aborted.');
  }
  const bytes = raw.head.length + r.toClient;
  s.server.counters.bytesOut += bytes;
  // The remote ended early (it went away): the client must not take the short file as whole.
  if (r.end?.reason !== 'closed' || r.toClient !== rest) throw new Reply(426, 'Connection closed; transfer aborted.');
  s.server.counters.downloads++;
  return { code: 226, text: 'Transfer complete.', path, bytes };
}

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

/**
 * STOR to a remote storage: the socket's bytes (after the old file's kept ones) into one upload,
 * the socket paused while the remote lags behind. The file is there when this resolves; an ABOR,
 * a data connection closed without its end or the session's end errors the upload, which leaves
 * nothing under the name. The bytes the client sent.
 */
async function receiveRemote(s: FtpSession, sock: Duplex, up: RemoteUpload): Promise<number> {
  let written = 0;
  await runTransfer(
    s,
    sock,
    async (signal) => {
      let failed = false;
      let fail!: (e: unknown) => void;
      const clientDone = new Promise<void>((resolve, reject) => {
        fail = (e: unknown) => {
          if (failed) return;
          failed = true;
          up.fail(e instanceof Error ? e : new Error(String(e)));
          reject(e instanceof MsgError ? fsReply(e) : e);
        };
        signal.addEventListener('abort', () => fail(new Error('aborted')));
        sock.on('error', fail);
        sock.on('close', () => {
          // Closed without a clean end: the client went away mid-transfer.
          if (!sock.readableEnded) fail(new Error('data connection closed'));
        });
        sock.on('end', () => {
          if (!failed) resolve();
        });
      });
      clientDone.catch(() => undefined);
      if (sock.destroyed) fail(new Error('data connection closed'));
      // The old file's kept bytes first (a resumed upload, APPE); a failure meanwhile ends it.
      await up.begin().catch(fail);
      if (failed) await clientDone;
      // The remote gave up on its own (it went away).
      up.settled.catch(fail);
      let waiting = false;
      sock.on('data', (chunk: Buffer) => {
        if (failed) return;
        written += chunk.length;
        s.server.counters.bytesIn += chunk.length;
        if (up.write(chunk) || waiting) return;
        waiting = true;
        sock.pause();
        up.drained().then(() => {
          waiting = false;
          if (!failed) sock.resume();
        }, fail);
      });
      sock.resume();
      await clientDone;
      await up.finish();
    },
    () => up.fail(new Error('aborted')),
  );
  return written;
}

const { ENOSPC, EDQUOT } = osConstants.errno;

export function store(verb: 'STOR' | 'APPE'): Handler {
  return guarded(verb, async (s, arg) => {
    const t = await target(s, arg, 'write');
    const append = verb === 'APPE';
    const offset = s.takeRest();
    if (t.rp.path === '/') throw new Reply(553, 'Could not create file.');
    const st = await statOf(t, { link: true });
    if (st?.isDirectory()) throw new Reply(553, 'Could not create file: it is a directory.');
    const existing = st?.size ?? 0;
    if (!append && offset > existing) throw new Reply(554, 'Restart position beyond the end of the file.');
    const room = await s.server.deps.storages.room(t.grant);
    // Bytes the upload may add: what is free, plus what it overwrites.
    const budget = room + (append ? 0 : existing - offset);
    if (budget <= 0 && Number.isFinite(room)) throw new Reply(552, 'Exceeded storage allocation.');
    const native = nativeData(s) && !t.grant.remote;
    // Opened before the 150, as for RETR.
    const opened = await openUpload(t, { append, offset, existing, native });
    if (opened.remote) {
      const up = opened.remote;
      // Handed over unread: nothing is read from the client before the upload can take it.
      const sock = await openData(s, `Ok to send data.`, true).catch((e: unknown) => {
        up.fail(new Error('no data connection'));
        throw e;
      });
      const written = await receiveRemote(s, sock, up);
      s.server.counters.uploads++;
      return { code: 226, text: 'Transfer complete.', path: t.virtual, bytes: written };
    }
    const { file, start } = opened;
    try {
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
