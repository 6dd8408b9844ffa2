/** lucky.db: module data in SQLite (WAL), upgraded by numbered migrations kept per namespace. */
import Database from 'better-sqlite3';
import { join } from 'node:path';

export type Db = Database.Database;
export const DB_FILE = 'lucky.db';

export interface Migration {
  /** 1, 2, 3... within its namespace; never renumbered once released. */
  version: number;
  name: string;
  up: string | ((db: Db) => void);
}

/** lucky.db cannot be used as it is: SQLite reads it as corrupt, or it fails the quick check. */
export class DamagedDbError extends Error {
  constructor(
    readonly file: string,
    readonly detail: string,
  ) {
    super(`${file} is damaged (${detail})`);
  }
}

/** SQLite's own word that a file's content is broken (not a missing file, a lock or permissions). */
export function isDamage(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && /^SQLITE_(CORRUPT|NOTADB)/.test(code);
}

/** PRAGMA quick_check: the b-trees and their pages, without the slower index cross-checks. */
export function quickCheck(db: Db): string | undefined {
  return problems(db.pragma('quick_check(3)') as { quick_check: string }[]);
}

/** The first problems an integrity or quick check reports, on one line; undefined when it says ok. */
export function problems(rows: Record<string, string>[]): string | undefined {
  const lines = rows.flatMap((r) => Object.values(r)[0]?.split('\n') ?? []).filter((l) => l && !l.startsWith('***'));
  return lines.length === 1 && lines[0] === 'ok' ? undefined : lines.slice(0, 3).join('; ') || 'no answer';
}

/** Opens lucky.db; a damaged file throws DamagedDbError and is left exactly as it is. */
export function openDb(dataDir: string, file = DB_FILE): Db {
  const path = join(dataDir, file);
  let db: Db | undefined;
  try {
    db = new Database(path);
    db.pragma('journal_mode = WAL');
    // NORMAL under WAL: a power cut can lose the last commits but never corrupts the file.
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    const problem = quickCheck(db);
    if (problem) throw new DamagedDbError(path, problem);
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      namespace TEXT NOT NULL,
      version INTEGER NOT NULL,
      name TEXT NOT NULL,
      applied_at INTEGER NOT NULL,
      PRIMARY KEY (namespace, version)
    )`);
    return db;
  } catch (err) {
    db?.close();
    if (isDamage(err)) throw new DamagedDbError(path, (err as Error).message);
    throw err;
  }
}

function appliedVersions(db: Db, namespace: string): Set<number> {
  return new Set(
    db
      .prepare<[string], { version: number }>('SELECT version FROM schema_migrations WHERE namespace = ?')
      .all(namespace)
      .map((r) => r.version),
  );
}

/** The migrations of `namespace` that `migrate` would apply now. */
export function pendingMigrations(db: Db, namespace: string, migrations: readonly Migration[]): Migration[] {
  const applied = appliedVersions(db, namespace);
  return migrations.filter((m) => !applied.has(m.version));
}

/** Whether any migration was ever applied here: a new, empty database has nothing to lose. */
export function hasHistory(db: Db): boolean {
  return db.prepare('SELECT 1 FROM schema_migrations LIMIT 1').get() !== undefined;
}

/** Applies, in order and each in its own transaction, the migrations of `namespace` not yet applied. */
export function migrate(db: Db, namespace: string, migrations: readonly Migration[]): number[] {
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  sorted.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`${namespace} migrations must be numbered 1..n without gaps (found ${m.version})`);
  });
  const applied = appliedVersions(db, namespace);
  const newest = Math.max(0, ...applied);
  if (newest > sorted.length) {
    throw new Error(
      `${DB_FILE} was written by a newer version (${namespace} schema ${newest}, this one knows ${sorted.length}); refusing to touch it`,
    );
  }
  const done: number[] = [];
  const record = db.prepare('INSERT INTO schema_migrations (namespace, version, name, applied_at) VALUES (?, ?, ?, ?)');
  for (const m of sorted) {
    if (applied.has(m.version)) continue;
    db.transaction(() => {
      if (typeof m.up === 'string') db.exec(m.up);
      else m.up(db);
      record.run(namespace, m.version, m.name, Date.now());
    })();
    done.push(m.version);
  }
  return done;
}

/** The core's own tables: sessions, and the generic rule and module-settings storage every module uses. */
export const coreMigrations: Migration[] = [
  {
    version: 1,
    name: 'sessions',
    up: `CREATE TABLE sessions (
      token_hash TEXT PRIMARY KEY,
      account TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      last_seen INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      address TEXT NOT NULL DEFAULT '',
      agent TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX sessions_expires ON sessions (expires_at);`,
  },
  {
    version: 2,
    name: 'rules and module settings',
    up: `CREATE TABLE rules (
      module TEXT NOT NULL,
      key TEXT NOT NULL,
      position INTEGER NOT NULL,
      data TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (module, key)
    );
    CREATE TABLE module_settings (
      module TEXT PRIMARY KEY,
      data TEXT NOT NULL,
      updated_at INTEGER NOT NULL
    );`,
  },
  {
    version: 3,
    name: 'api tokens',
    up: `CREATE TABLE api_tokens (
      id TEXT PRIMARY KEY,
      token_hash TEXT NOT NULL UNIQUE,
      name TEXT NOT NULL,
      scope TEXT NOT NULL,
      account TEXT NOT NULL,
      prefix TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      last_used INTEGER NOT NULL DEFAULT 0
    );`,
  },
  {
    version: 4,
    name: 'audit log',
    up: `CREATE TABLE audit (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      at INTEGER NOT NULL,
      actor TEXT NOT NULL,
      address TEXT NOT NULL,
      action TEXT NOT NULL,
      target TEXT NOT NULL,
      result INTEGER NOT NULL
    );`,
  },
  {
    version: 5,
    name: 'rule owners',
    // JSON of RuleOwner ({module, key, name}): the other module's object a rule was made for; NULL for the user's own.
    up: 'ALTER TABLE rules ADD COLUMN owner TEXT',
  },
  {
    version: 6,
    name: 'login locks',
    // The defender's locked addresses (core/loginguard.ts), so that a restart does not lift them.
    up: `CREATE TABLE login_locks (
      address TEXT PRIMARY KEY,
      failures INTEGER NOT NULL,
      last_failure INTEGER NOT NULL,
      locked_until INTEGER NOT NULL
    );`,
  },
];
