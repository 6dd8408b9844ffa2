/** Per-task history in lucky.db: addresses seen, sync results and webhook calls, the newest kept. */
import type { DdnsHistoryEntry } from '@lucky/contracts';
import type { Db, Migration } from '../../core/db.js';

export const ddnsMigrations: Migration[] = [
  {
    version: 1,
    name: 'ddns history',
    up: `CREATE TABLE ddns_history (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      task TEXT NOT NULL,
      at INTEGER NOT NULL,
      kind TEXT NOT NULL,
      record_type TEXT NOT NULL DEFAULT '',
      domain TEXT NOT NULL DEFAULT '',
      ip TEXT NOT NULL DEFAULT '',
      status TEXT NOT NULL DEFAULT '',
      message TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX ddns_history_task ON ddns_history (task, id);`,
  },
];

export class DdnsHistory {
  /** Inserts per task since its last prune. */
  private inserts = new Map<string, number>();

  constructor(
    private db: Db,
    /** Entries kept per task. */
    private keep = 500,
  ) {}

  add(task: string, e: Omit<DdnsHistoryEntry, 'at'> & { at?: number }): void {
    this.db
      .prepare('INSERT INTO ddns_history (task, at, kind, record_type, domain, ip, status, message) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(task, e.at ?? Date.now(), e.kind, e.recordType, e.domain, e.ip, e.status, e.message.slice(0, 1000));
    const n = (this.inserts.get(task) ?? 0) + 1;
    if (n >= 50) {
      this.inserts.set(task, 0);
      this.prune(task);
    } else this.inserts.set(task, n);
  }

  prune(task: string): void {
    this.db
      .prepare(
        'DELETE FROM ddns_history WHERE task = ? AND id < (SELECT id FROM ddns_history WHERE task = ? ORDER BY id DESC LIMIT 1 OFFSET ?)',
      )
      .run(task, task, this.keep - 1);
  }

  list(task: string, limit: number): DdnsHistoryEntry[] {
    return this.db
      .prepare<[string, number], { at: number; kind: DdnsHistoryEntry['kind']; record_type: string; domain: string; ip: string; status: string; message: string }>(
        'SELECT at, kind, record_type, domain, ip, status, message FROM ddns_history WHERE task = ? ORDER BY id DESC LIMIT ?',
      )
      .all(task, limit)
      .map((r) => ({ at: r.at, kind: r.kind, recordType: r.record_type, domain: r.domain, ip: r.ip, status: r.status, message: r.message }));
  }

  drop(task: string): void {
    this.inserts.delete(task);
    this.db.prepare('DELETE FROM ddns_history WHERE task = ?').run(task);
  }
}
