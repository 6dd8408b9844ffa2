/**
 * Session ticket keys of Node's TLS servers (the Node path: LUCKY_WEB_ENGINE=node, and HTTPS rules
 * with HTTP/2 until the edge speaks it). Node would seal tickets with a random key per server for
 * the server's whole life; here every server of the process shares one key, made on the main thread
 * and replaced every 12 hours: a stolen key opens half a day of sessions, not the process's life,
 * and a client whose next connection lands on another serving thread (SO_REUSEPORT spreads them)
 * still resumes. Serving threads take the main thread's key (workerData, then a message at each
 * rotation) and never make their own.
 *
 * Node keeps one key per server (server.setTicketKeys): a ticket sealed before a rotation is not
 * opened after it, and that client makes a full handshake (and gets a ticket under the new key).
 * The edge rotates its own keys in C (native/edge/ticketkeys.c) and keeps the previous one for a
 * period; the period set here is given to it too (onTicketRotation).
 */
import { randomBytes } from 'node:crypto';

const DEFAULT_ROTATION_MS = 12 * 3600_000;

class TicketKeys {
  private key: Buffer | null = null;
  private born = 0;
  private timer: NodeJS.Timeout | null = null;
  /** In a serving thread: the coordinator's keys. */
  private following = false;
  private users = new Set<(key: Buffer) => void>();
  rotationMs = DEFAULT_ROTATION_MS;

  /** The key sealing now (48 bytes, as setTicketKeys takes them). */
  current(): Buffer {
    if (!this.following && (!this.key || Date.now() - this.born >= this.rotationMs)) this.replace();
    return this.key!;
  }

  /** `fn` gets each new key; the returned function stops that. */
  subscribe(fn: (key: Buffer) => void): () => void {
    this.users.add(fn);
    this.arm();
    return () => {
      this.users.delete(fn);
      if (this.users.size === 0 && this.timer) {
        clearTimeout(this.timer);
        this.timer = null;
      }
    };
  }

  /** A serving thread: the key is the coordinator's, from now on. */
  follow(key: Uint8Array): void {
    this.following = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.key?.fill(0);
    this.key = Buffer.from(key);
    for (const fn of this.users) fn(this.key);
  }

  /** A new period (tests): the timer starts again with it. */
  period(ms: number): void {
    this.rotationMs = ms > 0 ? ms : DEFAULT_ROTATION_MS;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.arm();
  }

  private arm(): void {
    if (this.following || this.timer || this.users.size === 0) return;
    const key = this.current();
    this.timer = setTimeout(
      () => {
        this.timer = null;
        if (this.key === key) this.replace();
        this.arm();
      },
      Math.max(0, this.born + this.rotationMs - Date.now()),
    );
    this.timer.unref();
  }

  private replace(): void {
    const old = this.key;
    this.key = randomBytes(48);
    this.born = Date.now();
    // The old key's bytes do not linger in this buffer (Node copied them into its contexts).
    old?.fill(0);
    for (const fn of this.users) fn(this.key);
  }
}

/** This thread's ticket key. */
export const ticketKeys = new TicketKeys();

const periodHooks = new Set<(ms: number) => void>();

/** How long a ticket key seals; a setting of the code, not the user's: tests rotate in seconds. */
export function setTicketRotation(ms: number): void {
  ticketKeys.period(ms);
  for (const fn of periodHooks) fn(ticketKeys.rotationMs);
}

/** `fn` gets the period now and at each change (the edge's own keys follow it). */
export function onTicketRotation(fn: (ms: number) => void): void {
  periodHooks.add(fn);
  fn(ticketKeys.rotationMs);
}
