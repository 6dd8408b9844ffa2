/**
 * A rule's limits per client address on the Node path (the native edge keeps its own, shared by its
 * threads: native/edge/limit.c, the same arithmetic): a token bucket of requests, a count of open
 * connections, and the largest body. At most 4096 addresses are followed per rule and thread; a new
 * one takes the place of the one quiet longest that holds no connection.
 */
import type { WebLimits } from '@lucky/contracts';

const FOLLOWED = 4096;

interface Seen {
  /** Tokens left, where one request takes 1. */
  tokens: number;
  at: number;
  connections: number;
}

export class ClientLimits {
  private seen = new Map<string, Seen>();
  readonly maxBody: number;

  constructor(
    private readonly cfg: WebLimits,
    private readonly now: () => number = Date.now,
  ) {
    this.maxBody = cfg.maxBodyBytes;
  }

  static of(cfg: WebLimits): ClientLimits | null {
    return cfg.rate > 0 || cfg.connections > 0 || cfg.maxBodyBytes > 0 ? new ClientLimits(cfg) : null;
  }

  private entry(ip: string, t: number): Seen {
    let e = this.seen.get(ip);
    if (e) {
      // Most recent last: the first entries are the ones to let go.
      this.seen.delete(ip);
      this.seen.set(ip, e);
      return e;
    }
    if (this.seen.size >= FOLLOWED) {
      for (const [k, v] of this.seen) {
        if (v.connections === 0) {
          this.seen.delete(k);
          break;
        }
      }
    }
    e = { tokens: this.cfg.burst + 1, at: t, connections: 0 };
    this.seen.set(ip, e);
    return e;
  }

  /** A request from `ip` may go on (0), or must wait this many seconds. */
  take(ip: string): number {
    const rate = this.cfg.rate;
    if (rate <= 0) return 0;
    const t = this.now();
    const e = this.entry(ip, t);
    e.tokens = Math.min(this.cfg.burst + 1, e.tokens + ((t - e.at) / 1000) * rate);
    e.at = t;
    if (e.tokens >= 1) {
      e.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - e.tokens) / rate));
  }

  /** A connection from `ip` opened: false when it is one too many (it is counted all the same; `closed` undoes it). */
  opened(ip: string): boolean {
    if (this.cfg.connections <= 0) return true;
    const e = this.entry(ip, this.now());
    e.connections++;
    return e.connections <= this.cfg.connections;
  }

  closed(ip: string): void {
    if (this.cfg.connections <= 0) return;
    const e = this.seen.get(ip);
    if (e && e.connections > 0) e.connections--;
  }
}
