/**
 * The zero-copy relay (native/splice_relay.c, built into dist/native by `npm run build`): plain TCP
 * pairs are handed over to a background thread that moves bytes with splice(2), so they never
 * enter JavaScript. Where the addon is missing (not Linux, no compiler at build time) or
 * LUCKY_SPLICE=0, `spliceRelay` returns null and the engine relays in JavaScript.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

interface Addon {
  start(onDone: (id: number, aToB: number, bToA: number, reason: number, errno: number) => void): void;
  add(fdA: number, fdB: number, idleMs: number): number;
  bytes(id: number): [number, number] | null;
  abort(id: number): [number, number] | null;
}

export type SpliceEnd = { reason: 'closed' | 'error' | 'idle'; errno: number; aToB: number; bToA: number };

/** A pair handed over; the sockets stay Node's and are destroyed by whoever gets the end. */
export interface SplicedPair {
  /** Bytes so far, client→target and target→client. */
  bytes(): [number, number];
  /** Takes the pair back (no `onEnd` follows); the totals moved. */
  abort(): [number, number];
}

/** dist/native from src/modules/portforward or dist/modules/portforward alike. */
const ADDON = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'dist', 'native', 'splice_relay.node');
const REASONS = ['closed', 'error', 'idle'] as const;
/** One relay thread per process, whichever copy of this module started it. */
const SHARED = Symbol.for('lucky.spliceRelay');

type Shared = { addon: Addon; ends: Map<number, (end: SpliceEnd) => void> };

function load(): Shared | null {
  const g = globalThis as unknown as Record<symbol, Shared | null | undefined>;
  if (g[SHARED] !== undefined) return g[SHARED];
  let shared: Shared | null = null;
  if (process.platform === 'linux' && process.env.LUCKY_SPLICE !== '0' && existsSync(ADDON)) {
    try {
      const addon = createRequire(import.meta.url)(ADDON) as Addon;
      const ends = new Map<number, (end: SpliceEnd) => void>();
      addon.start((id, aToB, bToA, reason, errno) => {
        const onEnd = ends.get(id);
        ends.delete(id);
        onEnd?.({ reason: REASONS[reason] ?? 'error', errno, aToB, bToA });
      });
      shared = { addon, ends };
    } catch {
      // Loaded in a second thread (the relay serves one), or a build for another system.
      shared = null;
    }
  }
  g[SHARED] = shared;
  return shared;
}

function fdOf(s: Socket): number {
  const fd = (s as unknown as { _handle?: { fd?: number } | null })._handle?.fd;
  return typeof fd === 'number' ? fd : -1;
}

/**
 * Hands a connected pair over, or returns null (then the caller relays in JavaScript). Both
 * sockets must be paused with nothing buffered either way, which is how the engine holds them
 * until the relay starts.
 */
export function spliceRelay(client: Socket, target: Socket, idleMs: number, onEnd: (end: SpliceEnd) => void): SplicedPair | null {
  const shared = load();
  if (!shared) return null;
  const a = fdOf(client);
  const b = fdOf(target);
  if (a < 0 || b < 0 || client.readableLength > 0 || target.readableLength > 0 || client.writableLength > 0 || target.writableLength > 0) return null;
  let id: number;
  try {
    id = shared.addon.add(a, b, idleMs);
  } catch {
    return null;
  }
  let last: [number, number] = [0, 0];
  shared.ends.set(id, (end) => {
    last = [end.aToB, end.bToA];
    onEnd(end);
  });
  return {
    bytes: () => {
      const now = shared.addon.bytes(id);
      if (now) last = now;
      return last;
    },
    abort: () => {
      shared.ends.delete(id);
      const now = shared.addon.abort(id);
      if (now) last = now;
      return last;
    },
  };
}

/** Whether pairs can be handed over here (loads the addon and starts its thread on first ask). */
export const spliceAvailable = (): boolean => load() !== null;
