/**
 * The body of a file answer over HTTP/1.1, for every server of files (WebDAV, the file browser and
 * its share links, a web rule's file server). A large body on a plain TCP connection goes by
 * sendfile(2) on the native relay thread: the bytes never enter user space, where the streamed way
 * reads each one into a buffer and writes it out again. The connection stays Node's: its head is
 * written by Node, Node stops using the socket for the length of the body, and the response is
 * then ended as usual so that Node's keep-alive carries on with the next request.
 *
 * Everything else is streamed as before: TLS (Node's TLS is OpenSSL in user space; it cannot hand
 * its keys to the kernel, so kTLS is out of reach), HTTP/2, serving threads (the relay belongs to the
 * main thread), small bodies (a plain write is cheaper than the trip to the relay thread), no native
 * addon, LUCKY_NATIVE_RELAY=0.
 */
import type { FileHandle } from 'node:fs/promises';
import { ServerResponse, type IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import { isMainThread } from 'node:worker_threads';
import { nativeFileSendOn, nativePass, nativeRelayAvailable, socketFd, type NativeEnd, type NativeFlow } from './relay.js';

export interface FileBodyOptions {
  /** The daemon's env.nativeRelay: false keeps every body on streams. */
  native: boolean;
  /** A native send that moves nothing for this long is cut (a client that stopped reading). */
  idleMs?: number;
  /** Bodies shorter than this are streamed (tests set 0 to send small files natively). */
  minNativeBytes?: number;
  /**
   * The streamed way's reads (default 1 MiB: a 64 KiB read means 16 times the reads and buffers of a
   * large file). A server with many slow clients bounds its memory with less: each holds one read.
   */
  readBytes?: number;
}

export interface FileBodyResult {
  /** The whole body went out and the response ended; false: the connection was cut. */
  complete: boolean;
  /** Bytes sent around `res.write` (sendfile), which counters wrapped around it have not seen. */
  bypassed: number;
}

const around = new WeakMap<ServerResponse, number>();

/**
 * Body bytes of `res` that went out around `res.write` (sendfile); known by the time the response
 * finishes, so a 'finish' listener that counts writes adds these.
 */
export function bypassedBytes(res: ServerResponse): number {
  return around.get(res) ?? 0;
}

/** As nginx's send_timeout: a client that takes nothing for a minute is gone. */
const IDLE_MS = 60_000;
/**
 * Below this sendfile gains little or nothing: the relay's wake-up, its end event back through the
 * event loop and the head leaving as a segment of its own cost about what the copy saves. From
 * 64 KiB on a request costs a quarter less CPU or better, a third at 1 MiB, two thirds at 4 MiB
 * (bench/storage/sendfile.mjs on the 2-core machine).
 */
export const NATIVE_MIN_BYTES = 64 * 1024;

const EMPTY = Buffer.alloc(0);

type Held = Socket & { _handle?: { fd?: number } | null; _paused?: boolean; timeout?: number };

/** Bytes the relay wrote on each connection, which Node's own count (bytesWritten) never saw. */
const aroundSocket = new WeakMap<object, number>();

/**
 * What a connection has written, the relay's sendfile included: Node's bytesWritten plus those
 * (the web rules' figures and access log read this).
 */
export function bytesWrittenOf(sock: object): number {
  return ((sock as { bytesWritten?: number }).bytesWritten ?? 0) + (aroundSocket.get(sock) ?? 0);
}

/**
 * Sends `length` bytes of `file` from `start` as the body of `res`, whose status and headers
 * (with that Content-Length) are set by writeHead and not yet sent. Takes the file handle and
 * closes it. Resolves once the body went out and the response ended, or the connection was cut (a
 * client gone, a file that shrank, a stalled client): never leaves a connection half-written.
 */
export async function sendFileBody(req: IncomingMessage, res: ServerResponse, file: FileHandle, start: number, length: number, o: FileBodyOptions): Promise<FileBodyResult> {
  try {
    if (length <= 0 || req.method === 'HEAD') {
      res.end();
      return { complete: true, bypassed: 0 };
    }
    const sock = nativeSocket(req, res, length, o);
    if (sock) {
      const r = await sendNative(res, sock, file, start, length, o.idleMs ?? IDLE_MS);
      if (r) return r;
    }
    return await sendStreamed(req, res, file, start, length, o.readBytes ?? 1 << 20);
  } finally {
    await file.close().catch(() => undefined);
  }
}

/** The response's connection when its body may go by sendfile, else null. */
function nativeSocket(req: IncomingMessage, res: ServerResponse, length: number, o: FileBodyOptions): Held | null {
  if (!o.native || length < (o.minNativeBytes ?? NATIVE_MIN_BYTES) || !isMainThread) return null;
  // HTTP/2's compatibility answer is no ServerResponse; a request body not read yet would be read
  // while the relay holds the socket.
  if (!(res instanceof ServerResponse) || req.httpVersionMajor !== 1 || !req.complete) return null;
  // A pipelined request's answer waits for the socket; it goes the streamed way.
  const sock = res.socket as Held | null;
  if (!sock || !(sock instanceof Socket) || sock instanceof TLSSocket || sock.destroyed || sock.writableCorked) return null;
  const fd = sock._handle?.fd;
  if (typeof fd !== 'number' || fd < 0 || !nativeRelayAvailable()) return null;
  return sock;
}

/** Resolves once Node's write queue on the socket is empty (the head is in the kernel); false when the socket died. */
function flushed(sock: Socket): Promise<boolean> {
  if (sock.writableLength === 0) return Promise.resolve(!sock.destroyed);
  // Writes complete in order: the callback of an empty one comes after everything before it.
  return new Promise((resolve) => sock.write(EMPTY, (err) => resolve(!err && !sock.destroyed)));
}

/**
 * The body by sendfile on the relay thread, which sends on a duplicate of the socket's descriptor:
 * Node may close its own at any moment. Null when the relay would not take it (the head is out by
 * then: the caller streams the body after it).
 */
function sendNative(res: ServerResponse, sock: Held, file: FileHandle, start: number, length: number, idleMs: number): Promise<FileBodyResult | null> {
  return aroundNode(res, sock, length, EMPTY, (fd, onEnd) => nativeFileSendOn(fd, file.fd, start, length, idleMs, onEnd));
}

/**
 * Writes the head of `res` (and `preface`, body bytes of its own), then has the relay move the other
 * `length - preface.length` bytes of the body on the connection while Node leaves it alone, and ends
 * the response. Null when the relay would not take it (the head and preface are out by then).
 */
async function aroundNode(res: ServerResponse, sock: Held, length: number, preface: Buffer, start: (fd: number, onEnd: (end: NativeEnd, sent: number) => void) => NativeFlow | null): Promise<FileBodyResult | null> {
  res.flushHeaders();
  if (preface.length > 0) res.write(preface);
  if (!(await flushed(sock)) || res.destroyed) {
    sock.destroy();
    return { complete: false, bypassed: 0 };
  }
  const fd = sock._handle?.fd;
  if (typeof fd !== 'number' || fd < 0) return null;

  // Node stops reading for the length of the body (a pipelined request or the client's EOF waits
  // until the answer before it is out), the way the HTTP server holds a flood of pipelined requests:
  // `_paused` makes its resume handlers pause the socket again. Nothing is added to the socket or
  // its handle: an object whose shape changes with each request turns slow for the rest of its life.
  const pausedHere = sock._paused !== true;
  sock._paused = true;
  sock.pause();
  // An idle timer of the socket sees no traffic meanwhile: the relay's own idle limit stands in.
  const timeout = sock.timeout ?? 0;
  if (timeout > 0) sock.setTimeout(0);
  const carryOn = () => {
    // Unless the server resumed it meanwhile (its pipelined answers drained) or paused it for itself.
    if (pausedHere && sock._paused === true && !sock.destroyed) {
      sock._paused = false;
      sock.resume();
    }
    if (timeout > 0 && !sock.destroyed) sock.setTimeout(timeout);
  };

  const rest = length - preface.length;
  let settle!: (end: NativeEnd | null, sent: number) => void;
  const ended = new Promise<{ end: NativeEnd | null; sent: number }>((resolve) => (settle = (end, sent) => resolve({ end, sent })));
  const flow: NativeFlow | null = start(fd, (end, sent) => settle(end, sent));
  if (!flow) {
    carryOn();
    return null;
  }
  // A connection destroyed meanwhile (a rule stopped, the server closed) is taken back from the
  // relay, whose duplicate then closes, and the connection with it.
  const gone = () => settle(null, flow.remove().toClient);
  sock.once('close', gone);
  if (sock.destroyed) gone();
  const { end, sent } = await ended;
  sock.off('close', gone);
  if (sent > 0) aroundSocket.set(sock, (aroundSocket.get(sock) ?? 0) + sent);
  around.set(res, sent);
  if (end?.reason !== 'closed' || sent !== rest || sock.destroyed) {
    sock.destroy();
    return { complete: false, bypassed: sent };
  }
  carryOn();
  // The body is out; with Content-Length given, end() writes nothing and hands the connection to
  // the next answer (or closes it, as the request asked).
  res.end();
  return { complete: true, bypassed: sent };
}

/** A body arriving on a connection of our own (a remote storage's answer), not yet read but for `head`. */
export interface PassedBody {
  /** Node no longer reads it (its handle stopped) and holds none of its bytes. */
  socket: Socket;
  /** The first bytes of the body, read with the answer's head. */
  head: Buffer;
}

/** Whether a body of `length` bytes for `res` may be passed on by the relay (sendPassedBody). */
export function canPassBody(req: IncomingMessage, res: ServerResponse, length: number, o: FileBodyOptions): boolean {
  return nativeSocket(req, res, length, o) !== null;
}

/**
 * Sends `length` bytes arriving on `body.socket` as the body of `res` (status and headers set by
 * writeHead, with that Content-Length), socket to socket on the relay thread: the bytes never
 * enter JavaScript. For a caller that asked canPassBody first. Resolves once the body went out and
 * the response ended, or the connection was cut (the source ended early, a client gone or stalled).
 * The source socket stays the caller's, to destroy or reuse after.
 */
export async function sendPassedBody(req: IncomingMessage, res: ServerResponse, body: PassedBody, length: number, o: FileBodyOptions): Promise<FileBodyResult> {
  const sock = nativeSocket(req, res, length, o);
  const srcFd = socketFd(body.socket);
  if (sock && srcFd >= 0 && body.head.length <= length) {
    const r = await aroundNode(res, sock, length, body.head, (fd, onEnd) => nativePass(srcFd, fd, length - body.head.length, o.idleMs ?? IDLE_MS, onEnd));
    if (r) return r;
  }
  // Not for the relay after all (a caller that did not ask): the connection is cut rather than
  // left with a head and no body.
  res.destroy();
  return { complete: false, bypassed: 0 };
}

/** The body read into buffers and written through Node. */
function sendStreamed(req: IncomingMessage, res: ServerResponse, file: FileHandle, start: number, length: number, readBytes: number): Promise<FileBodyResult> {
  return new Promise((resolve) => {
    const rs = file.createReadStream({ start, end: start + length - 1, highWaterMark: readBytes, autoClose: false });
    // An HTTP/1.1 answer queued behind another (pipelined) has no socket yet and hears no 'close'
    // when the connection goes: the connection's own close ends it (and frees the file) then.
    const conn = res instanceof ServerResponse ? req.socket : null;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      conn?.off('close', finish);
      rs.destroy();
      resolve({ complete: res.writableFinished, bypassed: 0 });
    };
    conn?.once('close', finish);
    res.once('close', finish);
    rs.on('error', () => res.destroy());
    // A file that shrank ends the stream early: the connection is cut rather than left waiting for the rest.
    rs.on('end', () => {
      if (rs.bytesRead !== length) res.destroy();
    });
    rs.pipe(res);
  });
}
