/**
 * The native addon (native/relay.c, built into dist/native/node-v<abi> by `npm run build`), loaded once per
 * process. Port forwarding relays through it; the web engine and STUN open their SO_REUSEPORT
 * listeners with it, and STUN its outbound connections from a listener's port. Where it is missing (not Linux, no compiler at build time) callers fall back to plain Node.
 */
import { closeSync, existsSync } from 'node:fs';
import { Socket, type Server } from 'node:net';
import { createRequire } from 'node:module';
import { constants } from 'node:os';
import { addonPath } from './addons.js';

export interface NativeAddon {
  start(
    onEnd: (id: number, a: number, b: number, reason: number, errno: number) => void,
    onPacket: (listenerId: number, msg: Buffer, address: string, port: number) => void,
  ): void;
  tcpAdd(fdA: number, fdB: number, idleMs: number): number;
  udpListen(fd: number, maxPacket: number): number;
  udpSetMax(id: number, maxPacket: number): void;
  udpSession(listenerId: number, fd: number, address: string, port: number): number;
  /**
   * A file to a socket with sendfile(2) from `offset`, `length` bytes (-1: to its end); counted in b.
   * The socket is half-closed after it unless `keepOpen` (an HTTP body on a keep-alive connection).
   */
  fileSend(sockFd: number, fileFd: number, offset: number, length: number, idleMs: number, keepOpen?: boolean): number;
  /** A socket into a file at `offset` (splice(2)) until EOF, at most `limit` bytes (-1: no limit); counted in a. */
  fileReceive(sockFd: number, fileFd: number, offset: number, limit: number, idleMs: number): number;
  /** `length` bytes from one socket to another by splice(2), on duplicates of both; counted in b. */
  pass(srcFd: number, dstFd: number, length: number, idleMs: number): number;
  counters(id: number): [number, number, number] | null;
  remove(id: number): [number, number] | null;
  listenTcp(ip: string, port: number, ipv6Only: boolean, backlog: number): number;
  connectTcp(localIp: string, localPort: number, ip: string, port: number): number;
  connectState(fd: number): number;
  /** The connections waiting on a listening socket, at most `max`, accepted now. */
  acceptTcp(fd: number, max: number): number[];
  /** native/files.c: [errno, size, mtimeMs, ino, mode, data | null]; data when a regular file of at most `max` bytes. */
  readBeneath(root: string, rel: string, max: number): Promise<[number, number, number, number, number, Buffer | null]>;
  /** native/files.c: [errno, existed, size, mtimeMs, ino] of relDir/name after data went to relDir/tmp and was renamed over it. */
  writeBeneath(root: string, relDir: string, name: string, tmp: string, data: Buffer): Promise<[number, boolean, number, number, number]>;
}

const ADDON = addonPath('relay');
const SHARED = Symbol.for('lucky.nativeAddon');

export function nativeAddon(): NativeAddon | null {
  const g = globalThis as unknown as Record<symbol, NativeAddon | null | undefined>;
  if (g[SHARED] !== undefined) return g[SHARED];
  let addon: NativeAddon | null = null;
  if (process.platform === 'linux' && existsSync(ADDON)) {
    try {
      addon = createRequire(import.meta.url)(ADDON) as NativeAddon;
    } catch {
      addon = null; // a build for another system
    }
  }
  g[SHARED] = addon;
  return addon;
}

const ERRNO_NAMES = new Map(Object.entries(constants.errno).map(([name, n]) => [n, name]));

/** Error codes as Node names them (EADDRINUSE…), for the same messages as a Node listen failure. */
export class ListenError extends Error {
  constructor(readonly code: string) {
    super(code);
  }
}

/**
 * The accept queue of busy listeners (capped by net.core.somaxconn): a burst of a thousand connects
 * waits rather than being dropped and retried a second later. Node's `listen()` calls listen(2)
 * again with its own 511 unless told, so a server given one of these descriptors passes it too, as
 * `listen({ fd }, LISTEN_BACKLOG)`: the `backlog` option is read only with a port.
 */
export const LISTEN_BACKLOG = 2048;

/**
 * A listening TCP socket with SO_REUSEPORT on a numeric address; its descriptor, which the caller
 * must hand to a server (with LISTEN_BACKLOG) or close. Throws ListenError (or Error
 * when the addon is missing).
 */
export function listenReusePort(ip: string, port: number, ipv6Only: boolean, backlog = LISTEN_BACKLOG): number {
  const addon = nativeAddon();
  if (!addon) throw new Error('native addon unavailable');
  const r = addon.listenTcp(ip, port, ipv6Only, backlog);
  if (r < 0) throw new ListenError(ERRNO_NAMES.get(-r) ?? `errno ${-r}`);
  return r;
}

/**
 * A TCP connection from localIp:localPort, a port a listenReusePort listener may already hold (the
 * NAT then maps the listener's port, which is what STUN over TCP publishes). Rejects with
 * ListenError (bind or connect failed: EADDRINUSE, ECONNREFUSED…) or an Error on timeout.
 */
export async function connectReusePort(localIp: string, localPort: number, ip: string, port: number, timeoutMs: number): Promise<Socket> {
  const addon = nativeAddon();
  if (!addon) throw new Error('native addon unavailable');
  const fd = addon.connectTcp(localIp, localPort, ip, port);
  if (fd < 0) throw new ListenError(ERRNO_NAMES.get(-fd) ?? `errno ${-fd}`);
  // The connect runs in the kernel; a few polls a connection (one per keepalive interval) cost nothing.
  const until = Date.now() + timeoutMs;
  for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
    const st = addon.connectState(fd);
    if (st === 0) return new Socket({ fd, readable: true, writable: true });
    if (st < 0 || Date.now() >= until) {
      closeSync(fd);
      if (st < 0) throw new ListenError(ERRNO_NAMES.get(-st) ?? `errno ${-st}`);
      throw new ListenError('ETIMEDOUT');
    }
    await new Promise((r) => setTimeout(r, wait));
  }
}

/** Connections taken from the queue per accept libuv reports. */
const ACCEPT_BURST = 128;
const DRAINING = Symbol('draining');

/**
 * Makes `server` take every waiting connection whenever libuv accepts one. libuv accepts a single
 * connection per event-loop turn (since 1.45), and a turn of a busy thread serving hundreds of
 * connections lasts tens of milliseconds: a burst of a thousand connects then waited seconds in
 * the kernel's queue (wrk -c1000 through one serving thread: p99 2-4 s, against nginx's 50 ms).
 * The connections taken here reach the server as its own do, through its 'connection' event, with
 * TCP_NODELAY (the web listeners' setting). Without the addon (not Linux, no compiler) the server
 * keeps libuv's pace.
 */
export function acceptInBursts(server: Server): void {
  const addon = nativeAddon();
  type Inner = Server & { _handle?: { fd?: number } | null; allowHalfOpen?: boolean; pauseOnConnect?: boolean; [DRAINING]?: boolean };
  const s = server as Inner;
  // A server that leaves its connections paused decides when they read: it keeps libuv's pace.
  if (!addon || s.pauseOnConnect) return;
  server.on('connection', () => {
    const fd = s._handle?.fd;
    if (s[DRAINING] || fd === undefined || fd < 0) return;
    s[DRAINING] = true;
    try {
      for (const c of addon.acceptTcp(fd, ACCEPT_BURST)) {
        let socket: Socket;
        try {
          // As the server makes its own (an HTTP server keeps half-open connections for itself to end).
          socket = new Socket({ fd: c, readable: true, writable: true, allowHalfOpen: s.allowHalfOpen === true });
        } catch {
          closeSync(c);
          continue;
        }
        socket.setNoDelay(true);
        server.emit('connection', socket);
      }
    } finally {
      s[DRAINING] = false;
    }
  });
}

/** native/serving.c, part of the same addon. */
interface ServingAddon {
  dupFd(fd: number): number;
  trimHeap(): boolean;
}

/** The addon has dupListener's half (an addon built before it has not). */
export function canDupListener(): boolean {
  return typeof (nativeAddon() as Partial<ServingAddon> | null)?.dupFd === 'function';
}

/**
 * Another descriptor of the listening socket `fd`, for a second server to poll it: the socket
 * stays open, its accept queue with it, until every descriptor of it is closed. Throws ListenError
 * (EMFILE…), or Error when the addon is missing.
 */
export function dupListener(fd: number): number {
  const addon = nativeAddon() as (NativeAddon & Partial<ServingAddon>) | null;
  if (!addon?.dupFd) throw new Error('native addon unavailable');
  const r = addon.dupFd(fd);
  if (r < 0) throw new ListenError(ERRNO_NAMES.get(-r) ?? `errno ${-r}`);
  return r;
}

/** Gives the free pages of every malloc arena back to the system (glibc); false where it cannot. */
export function trimHeap(): boolean {
  const addon = nativeAddon() as (NativeAddon & Partial<ServingAddon>) | null;
  return addon?.trimHeap?.() ?? false;
}
