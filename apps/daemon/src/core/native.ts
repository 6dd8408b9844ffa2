/**
 * The native addon (native/relay.c, built into dist/native by `npm run build`), loaded once per
 * process. Port forwarding relays through it; the web engine and STUN open their SO_REUSEPORT
 * listeners with it, and STUN its outbound connections from a listener's port. Where it is missing (not Linux, no compiler at build time) callers fall back to plain Node.
 */
import { closeSync, existsSync } from 'node:fs';
import { Socket } from 'node:net';
import { createRequire } from 'node:module';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface NativeAddon {
  start(
    onEnd: (id: number, a: number, b: number, reason: number, errno: number) => void,
    onPacket: (listenerId: number, msg: Buffer, address: string, port: number) => void,
  ): void;
  tcpAdd(fdA: number, fdB: number, idleMs: number): number;
  udpListen(fd: number, maxPacket: number): number;
  udpSetMax(id: number, maxPacket: number): void;
  udpSession(listenerId: number, fd: number, address: string, port: number): number;
  /** A file to a socket with sendfile(2) from `offset`, `length` bytes (-1: to its end); counted in b. */
  fileSend(sockFd: number, fileFd: number, offset: number, length: number, idleMs: number): number;
  /** A socket into a file at `offset` (splice(2)) until EOF, at most `limit` bytes (-1: no limit); counted in a. */
  fileReceive(sockFd: number, fileFd: number, offset: number, limit: number, idleMs: number): number;
  counters(id: number): [number, number, number] | null;
  remove(id: number): [number, number] | null;
  listenTcp(ip: string, port: number, ipv6Only: boolean, backlog: number): number;
  connectTcp(localIp: string, localPort: number, ip: string, port: number): number;
  connectState(fd: number): number;
  /** native/files.c: [errno, size, mtimeMs, ino, mode, data | null]; data when a regular file of at most `max` bytes. */
  readBeneath(root: string, rel: string, max: number): Promise<[number, number, number, number, number, Buffer | null]>;
  /** native/files.c: [errno, existed, size, mtimeMs, ino] of relDir/name after data went to relDir/tmp and was renamed over it. */
  writeBeneath(root: string, relDir: string, name: string, tmp: string, data: Buffer): Promise<[number, boolean, number, number, number]>;
}

/** dist/native from src/core or dist/core alike. */
const ADDON = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'native', 'relay.node');
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
 * A listening TCP socket with SO_REUSEPORT on a numeric address; its descriptor, which the caller
 * must hand to a server or close. Throws ListenError (or Error when the addon is missing). The
 * backlog (capped by net.core.somaxconn) lets a burst of a thousand connects wait rather than retry.
 */
export function listenReusePort(ip: string, port: number, ipv6Only: boolean, backlog = 2048): number {
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
