/**
 * The native relay (native/relay.c, built into dist/native by `npm run build`): the data path of
 * plain TCP pairs (splice(2), bytes never enter JavaScript), of UDP sessions (batched
 * datagrams) and of file transfers (sendfile(2) / splice(2) between a socket and a file) runs on a
 * background thread, one per process, for every module that relays (port forwarding, STUN) or
 * serves files (FTP). The engine keeps every decision and every socket; it
 * hands descriptors over and gets ends, counters and the datagrams of unknown clients back.
 * Where the addon is missing (not Linux, no compiler at build time) the functions here return null
 * and the engine relays in JavaScript; with LUCKY_NATIVE_RELAY=0 (`env.nativeRelay`) the engine
 * never calls them.
 */
import type { Socket as UdpSocket } from 'node:dgram';
import type { Socket } from 'node:net';
import { constants as osConstants } from 'node:os';
import { nativeAddon, type NativeAddon } from './native.js';

/** `limit`: a file receive got more bytes than its limit (those past it were not written). */
export type NativeEnd = { reason: 'closed' | 'error' | 'idle' | 'limit'; errno: number };

/** Something handed over: a TCP pair or a UDP session. */
export interface NativeFlow {
  /** Bytes so far client→target and target→client, and ms since the last byte. */
  counters(): { toTarget: number; toClient: number; idleMs: number };
  /** Takes it back (no end is reported afterwards); the totals moved. */
  remove(): { toTarget: number; toClient: number };
}

export interface NativeUdpListener {
  readonly id: number;
  setMaxPacket(bytes: number): void;
  /** Takes the listener (and any session still on it) back; Node may close the socket after this. */
  remove(): void;
}

const REASONS = ['closed', 'error', 'idle', 'limit'] as const;
/** One relay thread per process, whichever copy of this module started it. */
const SHARED = Symbol.for('lucky.nativeRelay');

type PacketHandler = (msg: Buffer, address: string, port: number) => void;
type Shared = {
  addon: NativeAddon;
  ends: Map<number, (end: NativeEnd, a: number, b: number) => void>;
  packets: Map<number, PacketHandler>;
  /** File transfers handed over since the start, and those on the relay thread now. */
  files: { started: number; active: number };
};

function load(): Shared | null {
  const g = globalThis as unknown as Record<symbol, Shared | null | undefined>;
  if (g[SHARED] !== undefined) return g[SHARED];
  let shared: Shared | null = null;
  const addon = nativeAddon();
  if (addon) {
    try {
      const ends: Shared['ends'] = new Map();
      const packets: Shared['packets'] = new Map();
      addon.start(
        (id, a, b, reason, errno) => {
          const onEnd = ends.get(id);
          ends.delete(id);
          onEnd?.({ reason: REASONS[reason] ?? 'error', errno }, a, b);
        },
        (listenerId, msg, address, port) => packets.get(listenerId)?.(msg, address, port),
      );
      shared = { addon, ends, packets, files: { started: 0, active: 0 } };
    } catch {
      // Started in a second thread (the relay serves one).
      shared = null;
    }
  }
  g[SHARED] = shared;
  return shared;
}

/** ECONNRESET for 104, so that log lines name the cause of a native end the way Node's own errors do. */
export function errnoName(errno: number): string {
  for (const [name, value] of Object.entries(osConstants.errno)) if (value === errno) return name;
  return `errno ${errno}`;
}

/** A TCP socket's descriptor, or -1 (not open, or not a plain socket). */
export function socketFd(s: Socket): number {
  const fd = (s as unknown as { _handle?: { fd?: number } | null })._handle?.fd;
  return typeof fd === 'number' ? fd : -1;
}

/**
 * dgram keeps its handle under an internal symbol (`_handle` is deprecated with a warning). The
 * handle's `recvStop` is what `dgram` itself calls; after it Node no longer reads the socket but
 * still sends on it and closes it.
 */
function udpHandle(s: UdpSocket): { fd: number; recvStop(): number } | null {
  const key = Object.getOwnPropertySymbols(s).find((k) => k.description === 'state symbol');
  const handle = key ? (s as unknown as Record<symbol, { handle?: { fd?: number; recvStop?: () => number } }>)[key]?.handle : undefined;
  if (!handle || typeof handle.fd !== 'number' || handle.fd < 0 || typeof handle.recvStop !== 'function') return null;
  return handle as { fd: number; recvStop(): number };
}

function flow(shared: Shared, id: number, onEnd: (end: NativeEnd) => void): NativeFlow {
  let last = { toTarget: 0, toClient: 0 };
  shared.ends.set(id, (end, a, b) => {
    last = { toTarget: a, toClient: b };
    onEnd(end);
  });
  return {
    counters: () => {
      const c = shared.addon.counters(id);
      if (c) last = { toTarget: c[0], toClient: c[1] };
      return { ...last, idleMs: c ? c[2] : 0 };
    },
    remove: () => {
      shared.ends.delete(id);
      const c = shared.addon.remove(id);
      if (c) last = { toTarget: c[0], toClient: c[1] };
      return last;
    },
  };
}

/** Whether the relay thread is there (Linux with the addon built, started in this thread). */
export function nativeRelayAvailable(): boolean {
  return load() !== null;
}

/** File transfers handed to the relay thread in this process so far, and those still on it. */
export function nativeFileTransfers(): { started: number; active: number } {
  const shared = load();
  return shared ? { ...shared.files } : { started: 0, active: 0 };
}

/**
 * A socket the relay can take: its descriptor, or -1 when Node holds bytes of it (read but not
 * consumed, or not yet written) or still reads it (the relay and libuv would race for the bytes).
 */
function idleSocketFd(s: Socket): number {
  const handle = (s as unknown as { _handle?: { fd?: number; reading?: boolean } | null })._handle;
  if (!handle || handle.reading || s.readableLength > 0 || s.writableLength > 0 || s.destroyed) return -1;
  return typeof handle.fd === 'number' ? handle.fd : -1;
}

function fileFlow(shared: Shared, add: () => number, onEnd: (end: NativeEnd) => void): NativeFlow | null {
  let id: number;
  try {
    id = add();
  } catch {
    return null;
  }
  shared.files.started++;
  shared.files.active++;
  let active = true;
  const done = () => {
    if (active) shared.files.active--;
    active = false;
  };
  const f = flow(shared, id, (end) => {
    done();
    onEnd(end);
  });
  return {
    counters: f.counters,
    remove: () => {
      done();
      return f.remove();
    },
  };
}

/**
 * Sends an open file to a connected socket from `offset` to the file's end (sendfile(2) on the relay
 * thread), then half-closes the socket. The socket must be paused and never read (a passive socket
 * accepted with pauseOnConnect, an active one paused before its connect completed), with nothing
 * buffered. Both descriptors stay Node's: close them once `onEnd` came or `remove()` returned, never
 * before. Null: send it in JavaScript. Progress counts in `toClient`.
 */
export function nativeFileSend(sock: Socket, fileFd: number, offset: number, idleMs: number, onEnd: (end: NativeEnd) => void): NativeFlow | null {
  const shared = load();
  const fd = shared ? idleSocketFd(sock) : -1;
  if (!shared || fd < 0) return null;
  return fileFlow(shared, () => shared.addon.fileSend(fd, fileFd, offset, -1, idleMs), onEnd);
}

/**
 * Sends `length` bytes of an open file from `offset` to a socket that carries on afterwards (an HTTP
 * body on a keep-alive connection): no half-close at the end, and `closed` only says the relay
 * stopped; the caller compares the bytes moved with `length` (a file that shrank sends fewer).
 * The caller has emptied Node's write queue on the socket and stopped Node reading it. The relay
 * sends on its own duplicate of the descriptor, closed at the end or by `remove()`: Node may close
 * its socket at any moment, and then takes the transfer back so that the connection goes too. The
 * file descriptor stays the caller's, to close once `onEnd` came or `remove()` returned. Null: no
 * relay here.
 */
export function nativeFileSendOn(sockFd: number, fileFd: number, offset: number, length: number, idleMs: number, onEnd: (end: NativeEnd, sent: number) => void): NativeFlow | null {
  const shared = load();
  if (!shared) return null;
  let flow: NativeFlow | null = null;
  flow = fileFlow(shared, () => shared.addon.fileSend(sockFd, fileFd, offset, length, idleMs, true), (end) => onEnd(end, flow ? flow.counters().toClient : 0));
  return flow;
}

/**
 * Passes `length` bytes that arrive on `srcFd` to `dstFd` (one way, on the relay thread), as
 * nativeFileSendOn sends a file: an HTTP body on a keep-alive connection, here a remote's answer
 * read on a connection of our own. Neither socket is half-closed, and `closed` only says the relay
 * stopped (at `length`, or at the source's EOF: the caller compares). The caller has stopped Node
 * reading both and emptied its write queue on the destination; the relay works on duplicates of
 * both, closed at the end or by `remove()`. Null: no relay here.
 */
export function nativePass(srcFd: number, dstFd: number, length: number, idleMs: number, onEnd: (end: NativeEnd, sent: number) => void): NativeFlow | null {
  const shared = load();
  if (!shared) return null;
  let flow: NativeFlow | null = null;
  flow = fileFlow(shared, () => shared.addon.pass(srcFd, dstFd, length, idleMs), (end) => onEnd(end, flow ? flow.counters().toClient : 0));
  return flow;
}

/**
 * Writes what arrives on a connected socket into an open file from `offset` until the peer's EOF
 * (`closed`), or ends with `limit` once more than `limit` bytes came (-1 or Infinity: no limit). The file must
 * not be opened with O_APPEND (splice(2) refuses it): start at its size instead. Same rules for
 * the socket and both descriptors as nativeFileSend. Progress counts in `toTarget`.
 */
export function nativeFileReceive(sock: Socket, fileFd: number, offset: number, limit: number, idleMs: number, onEnd: (end: NativeEnd) => void): NativeFlow | null {
  const shared = load();
  const fd = shared ? idleSocketFd(sock) : -1;
  if (!shared || fd < 0) return null;
  return fileFlow(shared, () => shared.addon.fileReceive(fd, fileFd, offset, Number.isFinite(limit) && limit >= 0 ? Math.floor(limit) : -1, idleMs), onEnd);
}

/**
 * Hands a connected TCP pair over, or returns null (the caller relays in JavaScript). Both sockets
 * must be paused with nothing buffered either way, which is how the engine holds them until the
 * relay starts. The sockets stay Node's: whoever gets the end destroys them.
 */
export function nativeTcp(client: Socket, target: Socket, idleMs: number, onEnd: (end: NativeEnd) => void): NativeFlow | null {
  const shared = load();
  if (!shared) return null;
  const a = socketFd(client);
  const b = socketFd(target);
  if (a < 0 || b < 0 || client.readableLength > 0 || target.readableLength > 0 || client.writableLength > 0 || target.writableLength > 0) return null;
  try {
    return flow(shared, shared.addon.tcpAdd(a, b, idleMs), onEnd);
  } catch {
    return null;
  }
}

/**
 * Moves a bound UDP listener's reading to the relay thread. Datagrams of clients that have no
 * session are given to `onPacket` as dgram's 'message' would. Null: keep reading in Node.
 */
export function nativeUdpListener(socket: UdpSocket, maxPacket: number, onPacket: PacketHandler): NativeUdpListener | null {
  const shared = load();
  const h = shared ? udpHandle(socket) : null;
  if (!shared || !h) return null;
  let id: number;
  try {
    id = shared.addon.udpListen(h.fd, maxPacket);
  } catch {
    return null;
  }
  h.recvStop();
  shared.packets.set(id, onPacket);
  return {
    id,
    setMaxPacket: (bytes) => shared.addon.udpSetMax(id, bytes),
    remove: () => {
      shared.packets.delete(id);
      shared.addon.remove(id);
    },
  };
}

/**
 * Hands a session's connected socket over: the relay thread sends the client's datagrams on it
 * and sends the replies back through the listener. Null: keep relaying this session in Node.
 */
export function nativeUdpSession(
  listener: NativeUdpListener,
  socket: UdpSocket,
  clientAddress: string,
  clientPort: number,
  onEnd: (end: NativeEnd) => void,
): NativeFlow | null {
  const shared = load();
  const h = shared ? udpHandle(socket) : null;
  if (!shared || !h) return null;
  let id: number;
  try {
    id = shared.addon.udpSession(listener.id, h.fd, clientAddress, clientPort);
  } catch {
    return null;
  }
  h.recvStop();
  return flow(shared, id, onEnd);
}
