import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { coreMigrations, migrate, openDb, type Migration } from './db.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'lucky-db-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('migrations', () => {
  it('applies the core migrations once, in WAL mode', () => {
    const dir = tempDir();
    const db = openDb(dir);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(migrate(db, 'core', coreMigrations)).toEqual(coreMigrations.map((m) => m.version));
    expect(migrate(db, 'core', coreMigrations)).toEqual([]);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['sessions', 'rules', 'module_settings', 'schema_migrations', 'api_tokens', 'audit', 'login_locks']));
    db.close();
  });

  it('upgrades a database written by an older version and keeps its data', () => {
    const dir = tempDir();
    let db = openDb(dir);
    migrate(db, 'core', coreMigrations.slice(0, 1));
    db.prepare("INSERT INTO sessions VALUES ('h', 'admin', 1, 1, 9999999999999, '', '')").run();
    db.close();
    db = openDb(dir);
    expect(migrate(db, 'core', coreMigrations)).toEqual(coreMigrations.slice(1).map((m) => m.version));
    expect(db.prepare('SELECT account FROM sessions').get()).toEqual({ account: 'admin' });
    db.close();
  });

  it('rolls back a failing migration and leaves the previous schema in place', () => {
    const db = openDb(tempDir());
    const ms: Migration[] = [
      { version: 1, name: 'one', up: 'CREATE TABLE a (x INTEGER)' },
      { version: 2, name: 'broken', up: 'CREATE TABLE b (x INTEGER); INSERT INTO nowhere VALUES (1)' },
    ];
    expect(() => migrate(db, 'm', ms)).toThrow();
    const names = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name);
    expect(names).toContain('a');
    expect(names).not.toContain('b');
    expect(db.prepare("SELECT MAX(version) AS v FROM schema_migrations WHERE namespace = 'm'").get()).toEqual({ v: 1 });
    db.close();
  });

  it('refuses gaps and databases from a newer version', () => {
    const db = openDb(tempDir());
    expect(() => migrate(db, 'x', [{ version: 2, name: 'two', up: '' }])).toThrow(/numbered/);
    migrate(db, 'y', [
      { version: 1, name: 'one', up: 'CREATE TABLE y1 (a)' },
      { version: 2, name: 'two', up: 'CREATE TABLE y2 (a)' },
    ]);
    expect(() => migrate(db, 'y', [{ version: 1, name: 'one', up: 'CREATE TABLE y1 (a)' }])).toThrow(/newer version/);
    db.close();
  });
});
