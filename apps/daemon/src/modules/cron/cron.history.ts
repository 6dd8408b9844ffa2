/**
 * Runs of every task in lucky.db, newest kept within a number of rows and of bytes per task, so a
 * chatty command every second cannot grow the database. Each action's summary is kept as a message
 * (key and values) and rendered in the reader's language. Beside it, when each task was last seen
 * scheduled, to know after a restart whether runs were missed while the daemon was down.
 */
import { MESSAGES, renderMsg, type CronActionType, type CronResult, type CronRun, type Lang, type Msg } from '@lucky/contracts';
import type { Db, Migration } from '../../core/db.js';

export const cronMigrations: Migration[] = [
  {
    version: 1,
    name: 'cron runs and last seen',
    up: `CREATE TABLE cron_runs (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      task TEXT NOT NULL,
      trigger TEXT NOT NULL,
      start INTEGER NOT NULL,
      ms INTEGER NOT NULL,
      result TEXT NOT NULL,
      actions TEXT NOT NULL,
      bytes INTEGER NOT NULL
    );
    CREATE INDEX cron_runs_task ON cron_runs (task, id);
    CREATE TABLE cron_seen (
      task TEXT PRIMARY KEY,
      at INTEGER NOT NULL
    );`,
  },
];

export type Trigger = CronRun['trigger'];

/** An action's result as kept: its summary a message. */
export interface ActionOutcome {
  type: CronActionType;
  ok: boolean;
  msg: Msg;
  output: string;
  truncated: boolean;
  ms: number;
}

export interface RunRecord {
  trigger: Trigger;
  start: number;
  ms: number;
  result: Exclude<CronResult, 'running'>;
  actions: ActionOutcome[];
}

interface Row {
  id: number;
  trigger: Trigger;
  start: number;
  ms: number;
  result: CronResult;
  actions: string;
}

function known(lang: Lang, m: Msg): boolean {
  return m.key in MESSAGES[lang] && Object.values(m.vars ?? {}).every((v) => typeof v !== 'object' || known(lang, v));
}

export class CronHistory {
  constructor(private db: Db) {}

  private pending: Array<{ task: string; r: RunRecord; bounds: { rows: number; bytes: number }; done: (id: number) => void; fail: (e: unknown) => void }> = [];

  /**
   * Stores a run and drops the task's oldest beyond the bounds; resolves with its id. Runs ending
   * in the same turn of the event loop (a thousand tasks on one second) are written in one
   * transaction, so a busy second costs one commit.
   */
  add(task: string, r: RunRecord, bounds: { rows: number; bytes: number }): Promise<number> {
    return new Promise((done, fail) => {
      if (this.pending.length === 0) setImmediate(() => this.flush());
      this.pending.push({ task, r, bounds, done, fail });
    });
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    const insert = this.db.prepare('INSERT INTO cron_runs (task, trigger, start, ms, result, actions, bytes) VALUES (?, ?, ?, ?, ?, ?, ?)');
    // The newest run is always kept; older ones go once the rows or the bytes counted from the newest pass the bounds.
    const prune = this.db.prepare(
      `DELETE FROM cron_runs WHERE id IN (
        SELECT id FROM (
          SELECT id, ROW_NUMBER() OVER (ORDER BY id DESC) AS n, SUM(bytes) OVER (ORDER BY id DESC) AS total
          FROM cron_runs WHERE task = ?
        ) WHERE n > 1 AND (n > ? OR total > ?)
      )`,
    );
    let ids: number[];
    try {
      ids = this.db.transaction(() =>
        batch.map(({ task, r, bounds }) => {
          const actions = JSON.stringify(r.actions);
          const id = insert.run(task, r.trigger, r.start, r.ms, r.result, actions, Buffer.byteLength(actions) + 64).lastInsertRowid as number;
          prune.run(task, bounds.rows, bounds.bytes);
          return id;
        }),
      )();
    } catch (err) {
      for (const b of batch) b.fail(err);
      return;
    }
    batch.forEach((b, i) => b.done(ids[i]!));
  }

  list(task: string, limit: number, lang: Lang): CronRun[] {
    return this.db
      .prepare<[string, number], Row>('SELECT id, trigger, start, ms, result, actions FROM cron_runs WHERE task = ? ORDER BY id DESC LIMIT ?')
      .all(task, limit)
      .map((r) => this.present(r, lang));
  }

  present(r: Row, lang: Lang): CronRun {
    const actions = JSON.parse(r.actions) as ActionOutcome[];
    return {
      id: r.id,
      trigger: r.trigger,
      start: r.start,
      ms: r.ms,
      result: r.result,
      actions: actions.map((a) => ({
        type: a.type,
        ok: a.ok,
        summary: known(lang, a.msg) ? renderMsg(lang, a.msg) : JSON.stringify(a.msg.vars ?? {}),
        output: a.output,
        truncated: a.truncated,
        ms: a.ms,
      })),
    };
  }

  get(id: number, lang: Lang): CronRun | undefined {
    const r = this.db.prepare<[number], Row>('SELECT id, trigger, start, ms, result, actions FROM cron_runs WHERE id = ?').get(id);
    return r && this.present(r, lang);
  }

  last(task: string): { start: number; ms: number; result: CronResult } | null {
    return this.db.prepare<[string], { start: number; ms: number; result: CronResult }>('SELECT start, ms, result FROM cron_runs WHERE task = ? ORDER BY id DESC LIMIT 1').get(task) ?? null;
  }

  /** When the task was last known scheduled (the daemon running, the task on); undefined when never. */
  seen(task: string): number | undefined {
    return this.db.prepare<[string], { at: number }>('SELECT at FROM cron_seen WHERE task = ?').get(task)?.at;
  }

  setSeen(entries: Iterable<[string, number]>): void {
    const put = this.db.prepare('INSERT INTO cron_seen (task, at) VALUES (?, ?) ON CONFLICT(task) DO UPDATE SET at = excluded.at');
    this.db.transaction(() => {
      for (const [task, at] of entries) put.run(task, at);
    })();
  }

  forgetSeen(task: string): void {
    this.db.prepare('DELETE FROM cron_seen WHERE task = ?').run(task);
  }

  drop(task: string): void {
    this.db.prepare('DELETE FROM cron_runs WHERE task = ?').run(task);
    this.forgetSeen(task);
  }
}
