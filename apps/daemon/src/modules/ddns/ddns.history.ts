/**
 * Per-task history in lucky.db: addresses seen, sync results and webhook calls, the newest kept.
 * A line's message is kept as its key and values (JSON) and rendered in the reader's language.
 */
import { MESSAGES, renderMsg, type DdnsHistoryEntry, type Lang, type Msg, type MsgValue } from '@lucky/contracts';
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
  {
    version: 2,
    name: 'ddns history messages as keys',
    // Lines written before were English text: they become a message that shows the text as it is.
    up: `UPDATE ddns_history SET message = json_object('key', 'rawText', 'vars', json_object('text', message)) WHERE message <> '';`,
  },
];

export type HistoryLine = Omit<DdnsHistoryEntry, 'at' | 'message'> & { at?: number; message: Msg | null };

/** Values longer than this are cut before they are stored (a provider's whole answer...). */
const MAX_VALUE = 500;

function bounded(m: Msg): Msg {
  if (!m.vars) return m;
  const vars: Record<string, MsgValue> = {};
  for (const [k, v] of Object.entries(m.vars)) vars[k] = typeof v === 'string' ? v.slice(0, MAX_VALUE) : typeof v === 'object' ? bounded(v) : v;
  return { key: m.key, vars };
}

/** A stored line in `lang`; one whose key a later version no longer has shows its values. */
function stored(lang: Lang, json: string): string {
  const m = JSON.parse(json) as Msg;
  const known = (x: Msg): boolean => x.key in MESSAGES[lang] && Object.values(x.vars ?? {}).every((v) => typeof v !== 'object' || known(v));
  return known(m) ? renderMsg(lang, m) : JSON.stringify(m.vars ?? {});
}

export class DdnsHistory {
  /** Inserts per task since its last prune. */
  private inserts = new Map<string, number>();

  constructor(
    private db: Db,
    /** Entries kept per task. */
    private keep = 500,
  ) {}

  add(task: string, e: HistoryLine): void {
    this.db
      .prepare('INSERT INTO ddns_history (task, at, kind, record_type, domain, ip, status, message) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(task, e.at ?? Date.now(), e.kind, e.recordType, e.domain, e.ip, e.status, e.message ? JSON.stringify(bounded(e.message)) : '');
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

  list(task: string, limit: number, lang: Lang): DdnsHistoryEntry[] {
    return this.db
      .prepare<[string, number], { at: number; kind: DdnsHistoryEntry['kind']; record_type: string; domain: string; ip: string; status: string; message: string }>(
        'SELECT at, kind, record_type, domain, ip, status, message FROM ddns_history WHERE task = ? ORDER BY id DESC LIMIT ?',
      )
      .all(task, limit)
      .map((r) => ({
        at: r.at,
        kind: r.kind,
        recordType: r.record_type,
        domain: r.domain,
        ip: r.ip,
        status: r.status,
        message: r.message ? stored(lang, r.message) : '',
      }));
  }

  drop(task: string): void {
    this.inserts.delete(task);
    this.db.prepare('DELETE FROM ddns_history WHERE task = ?').run(task);
  }
}
