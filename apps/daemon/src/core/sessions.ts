/** Sessions: random 256-bit tokens, stored only as SHA-256, expiring when idle, revocable. */
import { createHash, randomBytes } from 'node:crypto';
import type { Db } from './db.js';

export interface Session {
  tokenHash: string;
  account: string;
  createdAt: number;
  lastSeen: number;
  expiresAt: number;
  address: string;
  agent: string;
}

interface Row {
  token_hash: string;
  account: string;
  created_at: number;
  last_seen: number;
  expires_at: number;
  address: string;
  agent: string;
}

const toSession = (r: Row): Session => ({
  tokenHash: r.token_hash,
  account: r.account,
  createdAt: r.created_at,
  lastSeen: r.last_seen,
  expiresAt: r.expires_at,
  address: r.address,
  agent: r.agent,
});

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** What a session is called in lists: safe to show, useless to log in with. */
export const sessionId = (s: Session): string => s.tokenHash.slice(0, 16);

/** last_seen is written at most this often, so a busy console does not write on every call. */
const TOUCH_EVERY_MS = 60_000;

export class Sessions {
  constructor(
    private db: Db,
    private idleMs: () => number,
    private now: () => number = Date.now,
  ) {}

  create(account: string, address: string, agent: string): string {
    const token = randomBytes(32).toString('base64url');
    const t = this.now();
    this.db
      .prepare(
        'INSERT INTO sessions (token_hash, account, created_at, last_seen, expires_at, address, agent) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(hashToken(token), account, t, t, t + this.idleMs(), address, agent.slice(0, 256));
    return token;
  }

  /** The live session for a token, extending its expiry; undefined when missing, expired or revoked. */
  check(token: string | undefined, account: string): Session | undefined {
    if (!token || token.length > 128) return undefined;
    const row = this.db.prepare<[string], Row>('SELECT * FROM sessions WHERE token_hash = ?').get(hashToken(token));
    if (!row) return undefined;
    const t = this.now();
    // A session belongs to the account it was made for: renaming the account or resetting the
    // base config logs everyone out.
    if (row.expires_at <= t || row.account !== account) {
      this.db.prepare('DELETE FROM sessions WHERE token_hash = ?').run(row.token_hash);
      return undefined;
    }
    if (t - row.last_seen >= TOUCH_EVERY_MS) {
      row.last_seen = t;
      row.expires_at = t + this.idleMs();
      this.db
        .prepare('UPDATE sessions SET last_seen = ?, expires_at = ? WHERE token_hash = ?')
        .run(row.last_seen, row.expires_at, row.token_hash);
    }
    return toSession(row);
  }

  revoke(token: string): boolean {
    return this.db.prepare('DELETE FROM sessions WHERE token_hash = ?').run(hashToken(token)).changes > 0;
  }

  /** Revokes every session but the one given (after a password change). */
  revokeOthers(keepToken: string | undefined): number {
    return this.db.prepare('DELETE FROM sessions WHERE token_hash != ?').run(keepToken ? hashToken(keepToken) : '').changes;
  }

  /** Moves a session to a renamed account. */
  reassign(token: string, account: string): void {
    this.db.prepare('UPDATE sessions SET account = ? WHERE token_hash = ?').run(account, hashToken(token));
  }

  revokeAll(): number {
    return this.db.prepare('DELETE FROM sessions').run().changes;
  }

  /** Ends the session whose public id (the first 16 hex digits of its hash) is given. */
  revokeById(id: string): boolean {
    return this.db.prepare('DELETE FROM sessions WHERE substr(token_hash, 1, 16) = ?').run(id).changes > 0;
  }

  list(): Session[] {
    return this.db
      .prepare<[number], Row>('SELECT * FROM sessions WHERE expires_at > ? ORDER BY last_seen DESC')
      .all(this.now())
      .map(toSession);
  }

  count(): number {
    return this.db.prepare<[number], { n: number }>('SELECT COUNT(*) AS n FROM sessions WHERE expires_at > ?').get(this.now())!.n;
  }

  purgeExpired(): number {
    return this.db.prepare('DELETE FROM sessions WHERE expires_at <= ?').run(this.now()).changes;
  }
}
