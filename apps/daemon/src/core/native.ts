/**
 * The native addon (native/relay.c, built into dist/native by `npm run build`), loaded once per
 * process. Port forwarding relays through it; the web engine opens its SO_REUSEPORT listeners with
 * it. Where it is missing (not Linux, no compiler at build time) callers fall back to plain Node.
 */
import { existsSync } from 'node:fs';
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
  counters(id: number): [number, number, number] | null;
  remove(id: number): [number, number] | null;
  listenTcp(ip: string, port: number, ipv6Only: boolean, backlog: number): number;
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
