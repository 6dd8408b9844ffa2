/**
 * Portal sessions: random 256-bit tokens kept only as SHA-256, in the module's table and in memory
 * (every request of a protected site asks). A session ends when idle or old (the settings of now
 * decide, so a shorter time applies at once), when revoked, or when its user's password or second
 * factor changed since the login (`stamp`).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../../core/db.js';
import type { Migration } from '../../core/db.js';

export const portalMigrations: Migration[] = [
  {
    version: 1,
    name: 'portal sessions',
    up: `CREATE TABLE portal_sessions (
      token_hash TEXT PRIMARY KEY,
      user TEXT NOT NULL,
      stamp TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      last_seen INTEGER NOT NULL,
      address TEXT NOT NULL,
      agent TEXT NOT NULL
    );`,
  },
  {
    version: 2,
    name: 'single sign-on sessions',
    // JSON of the web rules a single sign-on session may open (its groups at sign-in); NULL = every one.
    up: 'ALTER TABLE portal_sessions ADD COLUMN rules TEXT',
  },
];

/** The stamp of a session made by single sign-on: its user is the provider's, not a portal user. */
export const SSO_STAMP = 'sso';

export interface PortalSessionRow {
  tokenHash: string;
  user: string;
  stamp: string;
  createdAt: number;
  lastSeen: number;
  address: string;
  agent: string;
  /** Single sign-on: the rules it may open (null = every one). */
  rules: string[] | null;
}

interface Row {
  token_hash: string;
  user: string;
  stamp: string;
  created_at: number;
  last_seen: number;
  address: string;
  agent: string;
  rules: string | null;
}

/** last_seen is written at most this often: a busy site does not write on every request. */
const TOUCH_EVERY_MS = 60_000;

export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');
/** What a session is called in lists: safe to show, useless to sign in with. */
export const sessionIdOf = (hash: string): string => hash.slice(0, 16);

export interface Lifetimes {
  idleMs: number;
  absoluteMs: number;
}

export class PortalSessions {
  private byHash = new Map<string, PortalSessionRow>();

  constructor(
    private db: Db,
    private now: () => number = Date.now,
  ) {
    for (const r of db.prepare<[], Row>('SELECT * FROM portal_sessions').all()) {
      const rules = r.rules === null ? null : (JSON.parse(r.rules) as string[]);
      this.byHash.set(r.token_hash, { tokenHash: r.token_hash, user: r.user, stamp: r.stamp, createdAt: r.created_at, lastSeen: r.last_seen, address: r.address, agent: r.agent, rules });
    }
  }

  create(user: string, stamp: string, address: string, agent: string, rules: string[] | null = null): string {
    const token = randomBytes(32).toString('base64url');
    const t = this.now();
    const row: PortalSessionRow = { tokenHash: tokenHash(token), user, stamp, createdAt: t, lastSeen: t, address, agent: agent.slice(0, 256), rules };
    this.db
      .prepare('INSERT INTO portal_sessions (token_hash, user, stamp, created_at, last_seen, address, agent, rules) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(row.tokenHash, row.user, row.stamp, row.createdAt, row.lastSeen, row.address, row.agent, rules === null ? null : JSON.stringify(rules));
    this.byHash.set(row.tokenHash, row);
    return token;
  }

  /** When a session ends unless used again. */
  expires(s: PortalSessionRow, life: Lifetimes): number {
    return Math.min(s.lastSeen + life.idleMs, s.createdAt + life.absoluteMs);
  }

  /** The live session of a token, its idle time renewed; an ended one is dropped. */
  use(token: string, life: Lifetimes): PortalSessionRow | null {
    if (!token || token.length > 128) return null;
    const s = this.byHash.get(tokenHash(token));
    if (!s) return null;
    const t = this.now();
    if (this.expires(s, life) <= t) {
      this.drop(s.tokenHash);
      return null;
    }
    if (t - s.lastSeen >= TOUCH_EVERY_MS || life.idleMs <= TOUCH_EVERY_MS) {
      s.lastSeen = t;
      this.db.prepare('UPDATE portal_sessions SET last_seen = ? WHERE token_hash = ?').run(t, s.tokenHash);
    }
    return s;
  }

  drop(hash: string): boolean {
    const had = this.byHash.delete(hash);
    if (had) this.db.prepare('DELETE FROM portal_sessions WHERE token_hash = ?').run(hash);
    return had;
  }

  /** By the id the console shows. */
  revoke(id: string): PortalSessionRow | null {
    for (const s of this.byHash.values()) {
      if (sessionIdOf(s.tokenHash) === id) {
        this.drop(s.tokenHash);
        return s;
      }
    }
    return null;
  }

  dropUser(user: string): number {
    let n = 0;
    for (const s of [...this.byHash.values()]) if (s.user === user && this.drop(s.tokenHash)) n++;
    return n;
  }

  /** Live sessions, newest first; ended ones are dropped on the way. */
  list(life: Lifetimes): PortalSessionRow[] {
    const t = this.now();
    const out: PortalSessionRow[] = [];
    for (const s of [...this.byHash.values()]) {
      if (this.expires(s, life) <= t) this.drop(s.tokenHash);
      else out.push(s);
    }
    return out.sort((a, b) => b.createdAt - a.createdAt);
  }
}
