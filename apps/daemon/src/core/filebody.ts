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
import { nativeFileSendOn, nativeRelayAvailable, type NativeEnd, type NativeFlow } from './relay.js';

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
 * Below this sendfile gains nothing measurable: the relay's wake-up, its end event back through the
 * event loop and the head leaving as a segment of its own cost what the copy saves. From 64 KiB on
 * it takes a third less CPU per request, and half from 1 MiB (bench/storage/sendfile.mjs).
 */
export const NATIVE_MIN_BYTES = 64 * 1024;

const EMPTY = Buffer.alloc(0);

const AROUND = Symbol('lucky.bytesAround');
type Handle = {
  fd?: number;
  reading?: boolean;
  readStart(): number;
  readStop(): number;
  [AROUND]?: number;
};
type Held = Socket & { _handle?: Handle | null; _paused?: boolean; _destroy: Socket['_destroy'] };

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
 * The body by sendfile on the relay thread. Null when the relay would not take it (the head is
 * out by then: the caller streams the body after it).
 */
async function sendNative(res: ServerResponse, sock: Held, file: FileHandle, start: number, length: number, idleMs: number): Promise<FileBodyResult | null> {
  res.flushHeaders();
  if (!(await flushed(sock)) || res.destroyed) {
    sock.destroy();
    return { complete: false, bypassed: 0 };
  }
  const handle = sock._handle;
  if (!handle || typeof handle.fd !== 'number' || handle.fd < 0) return null;

  // Node stops reading for the length of the body: a pipelined request or the client's EOF must
  // wait until the answer before them is out. Node's own pause and resume (the HTTP server's flood
  // control, a request's resume) only note what they want, which is done once the relay is through.
  const proto = Object.getPrototypeOf(handle) as Handle;
  handle.readStop();
  handle.readStart = () => 0;
  handle.readStop = () => 0;
  // An idle timer of the socket sees no traffic meanwhile: the relay's own idle limit stands in.
  const timeout = (sock as Socket & { timeout?: number }).timeout ?? 0;
  if (timeout > 0) sock.setTimeout(0);

  let settle!: (end: NativeEnd | null, sent: number) => void;
  const ended = new Promise<{ end: NativeEnd | null; sent: number }>((resolve) => (settle = (end, sent) => resolve({ end, sent })));
  let flow: NativeFlow | null = null;
  let taken = false;
  // Whoever destroys the socket meanwhile (a rule stopped, the server closed) takes it back from the
  // relay first: the descriptor is closed only once the relay no longer uses it.
  const hadOwnDestroy = Object.prototype.hasOwnProperty.call(sock, '_destroy');
  const destroyImpl = sock._destroy;
  sock._destroy = function (this: Socket, err: Error | null, cb: (err?: Error | null) => void) {
    if (flow && !taken) {
      taken = true;
      settle(null, flow.remove().toClient);
    }
    return destroyImpl.call(this, err, cb);
  };
  const release = () => {
    if (hadOwnDestroy) sock._destroy = destroyImpl;
    else delete (sock as Partial<Held>)._destroy;
    delete (handle as Partial<Handle>).readStart;
    delete (handle as Partial<Handle>).readStop;
  };

  flow = nativeFileSendOn(handle.fd, file.fd, start, length, idleMs, (end, sent) => {
    if (!taken) settle(end, sent);
  });
  if (!flow) {
    release();
    if (handle.reading && !sock._paused) proto.readStart.call(handle);
    if (timeout > 0) sock.setTimeout(timeout);
    return null;
  }
  const { end, sent } = await ended;
  release();
  countAround(handle, sent);
  around.set(res, sent);
  if (end?.reason !== 'closed' || sent !== length || sock.destroyed) {
    sock.destroy();
    return { complete: false, bypassed: sent };
  }
  // What Node wanted meanwhile: `reading` is its own flag, kept by its pause and resume.
  if (handle.reading && !sock._paused) proto.readStart.call(handle);
  if (timeout > 0) sock.setTimeout(timeout);
  // The body is out; with Content-Length given, end() writes nothing and hands the connection to
  // the next answer (or closes it, as the request asked).
  res.end();
  return { complete: true, bypassed: sent };
}

/**
 * Bytes the relay wrote count in the socket's bytesWritten (figures and access logs read it), as if
 * Node had written them: the handle's own counter plus those.
 */
function countAround(handle: Handle, n: number): void {
  if (n <= 0) return;
  if (handle[AROUND] === undefined) {
    let get: (() => number) | undefined;
    for (let p = Object.getPrototypeOf(handle) as object | null; p && !get; p = Object.getPrototypeOf(p) as object | null) get = Object.getOwnPropertyDescriptor(p, 'bytesWritten')?.get as (() => number) | undefined;
    if (!get) return;
    handle[AROUND] = 0;
    Object.defineProperty(handle, 'bytesWritten', {
      configurable: true,
      get(this: Handle) {
        return get!.call(this) + (this[AROUND] ?? 0);
      },
    });
  }
  handle[AROUND]! += n;
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
