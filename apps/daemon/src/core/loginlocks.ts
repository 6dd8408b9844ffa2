/** The defender's locks in the database (core migration 6): a restart does not lift them. */
import type { Db } from './db.js';
import type { LockEntry, LockStore } from './loginguard.js';

type Row = { address: string; failures: number; last_failure: number; locked_until: number };

export function loginLocks(db: Db): LockStore {
  return {
    load: (now) => {
      db.prepare('DELETE FROM login_locks WHERE locked_until <= ?').run(now);
      return db
        .prepare<[], Row>('SELECT * FROM login_locks')
        .all()
        .map((r): LockEntry => ({ address: r.address, failures: r.failures, lastFailure: r.last_failure, lockedUntil: r.locked_until }));
    },
    save: (e) => {
      db.prepare('INSERT OR REPLACE INTO login_locks (address, failures, last_failure, locked_until) VALUES (?, ?, ?, ?)').run(e.address, e.failures, e.lastFailure, e.lockedUntil);
    },
    drop: (address) => {
      if (address === undefined) db.prepare('DELETE FROM login_locks').run();
      else db.prepare('DELETE FROM login_locks WHERE address = ?').run(address);
    },
  };
}
