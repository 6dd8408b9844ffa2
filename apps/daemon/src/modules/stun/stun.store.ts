/**
 * What a STUN rule remembers across restarts: the local port the system chose (asked for again, so
 * the router's mapping and the published port stay the same), and the public address last
 * announced (so a restart that finds the same address does not notify again).
 */
import type { Db, Migration } from '../../core/db.js';

export const stunMigrations: Migration[] = [
  {
    version: 1,
    name: 'stun rule state',
    up: `CREATE TABLE stun_state (
      rule TEXT PRIMARY KEY,
      local_port INTEGER NOT NULL DEFAULT 0,
      public_addr TEXT NOT NULL DEFAULT '',
      changed_at INTEGER NOT NULL DEFAULT 0
    )`,
  },
];

export interface StunSaved {
  localPort: number;
  publicAddr: string;
  changedAt: number;
}

export class StunStore {
  constructor(private readonly db: Db) {}

  get(rule: string): StunSaved {
    const r = this.db
      .prepare<[string], { local_port: number; public_addr: string; changed_at: number }>('SELECT local_port, public_addr, changed_at FROM stun_state WHERE rule = ?')
      .get(rule);
    return { localPort: r?.local_port ?? 0, publicAddr: r?.public_addr ?? '', changedAt: r?.changed_at ?? 0 };
  }

  setLocalPort(rule: string, port: number): void {
    this.db.prepare('INSERT INTO stun_state (rule, local_port) VALUES (?, ?) ON CONFLICT(rule) DO UPDATE SET local_port = excluded.local_port').run(rule, port);
  }

  setPublic(rule: string, addr: string, at: number): void {
    this.db
      .prepare('INSERT INTO stun_state (rule, public_addr, changed_at) VALUES (?, ?, ?) ON CONFLICT(rule) DO UPDATE SET public_addr = excluded.public_addr, changed_at = excluded.changed_at')
      .run(rule, addr, at);
  }

  drop(rule: string): void {
    this.db.prepare('DELETE FROM stun_state WHERE rule = ?').run(rule);
  }
}
