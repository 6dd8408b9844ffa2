/** API tokens for scripts: random, stored hashed, named, read-only or full, revocable. */
import { randomBytes } from 'node:crypto';
import type { ApiToken } from '@lucky/contracts';
import type { Db } from '../core/db.js';
import { hashToken } from '../core/sessions.js';

interface Row {
  id: string;
  name: string;
  scope: 'read' | 'full';
  account: string;
  prefix: string;
  created_at: number;
  last_used: number;
}

const toInfo = (r: Row): ApiToken => ({ id: r.id, name: r.name, scope: r.scope, created: r.created_at, lastUsed: r.last_used, prefix: r.prefix });

export const API_TOKEN_PREFIX = 'lk_';

export class ApiTokens {
  constructor(
    private db: Db,
    private now: () => number = Date.now,
  ) {}

  create(name: string, scope: 'read' | 'full', account: string): { token: string; info: ApiToken } {
    const token = API_TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const id = randomBytes(8).toString('hex');
    const row: Row = { id, name, scope, account, prefix: token.slice(0, 8), created_at: this.now(), last_used: 0 };
    this.db
      .prepare('INSERT INTO api_tokens (id, token_hash, name, scope, account, prefix, created_at, last_used) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(id, hashToken(token), name, scope, account, row.prefix, row.created_at, 0);
    return { token, info: toInfo(row) };
  }

  /** The token's record when it is valid for this account; notes when it was last used. */
  check(token: string, account: string): ApiToken | undefined {
    if (!token.startsWith(API_TOKEN_PREFIX) || token.length > 128) return undefined;
    const row = this.db.prepare<[string], Row>('SELECT * FROM api_tokens WHERE token_hash = ?').get(hashToken(token));
    if (!row || row.account !== account) return undefined;
    const t = this.now();
    if (t - row.last_used > 60_000) {
      this.db.prepare('UPDATE api_tokens SET last_used = ? WHERE id = ?').run(t, row.id);
      row.last_used = t;
    }
    return toInfo(row);
  }

  list(): ApiToken[] {
    return this.db.prepare<[], Row>('SELECT * FROM api_tokens ORDER BY created_at').all().map(toInfo);
  }

  revoke(id: string): boolean {
    return this.db.prepare('DELETE FROM api_tokens WHERE id = ?').run(id).changes > 0;
  }

  revokeAll(): number {
    return this.db.prepare('DELETE FROM api_tokens').run().changes;
  }
}
