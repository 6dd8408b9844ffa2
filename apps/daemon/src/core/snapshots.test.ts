/** Snapshots of lucky.db and starting again from one, on real SQLite files in temp dirs. */
import Database from 'better-sqlite3';
import { closeSync, copyFileSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { coreMigrations, DamagedDbError, DB_FILE, migrate, openDb, type Db } from './db.js';
import { damagedDbAdvice, restoreSnapshot } from './snapshotrestore.js';
import { DAY_MS, listSnapshots, newestSnapshot, refuseEmptiedDb, snapshotBeforeMigrations, snapshotDir, Snapshots } from './snapshots.js';

const dirs: string[] = [];
const open: Db[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'lucky-snap-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const db of open.splice(0)) if (db.open) db.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A lucky.db with the core tables and the named wol rules. */
function luckyDb(dir: string, names: string[] = []): Db {
  const db = openDb(dir);
  open.push(db);
  migrate(db, 'core', coreMigrations);
  names.forEach((name) => addRule(db, name));
  return db;
}

function addRule(db: Db, name: string): void {
  db.prepare("INSERT INTO rules (module, key, position, data, created_at, updated_at) VALUES ('wol', ?, 0, ?, 0, 0)").run(name, JSON.stringify({ name }));
}

/** The wol rule names in a database file, read-only. */
function rulesIn(file: string): string[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare("SELECT key FROM rules WHERE module = 'wol' ORDER BY key").all() as { key: string }[]).map((r) => r.key);
  } finally {
    db.close();
  }
}

/** Garbage over the cells of the last page: the file opens, SQLite's check finds it. */
function corruptLastPage(file: string): void {
  const pages = statSync(file).size / 4096;
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(2000, 0xab), 0, 2000, (pages - 1) * 4096 + 8);
  closeSync(fd);
}

/** A clock the test moves. */
function clock(start = Date.UTC(2025, 0, 10, 12, 0, 0)) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('snapshots', () => {
  it('copies the database to snapshots/lucky-YYYYMMDD-HHMMSS.db: whole, self-contained, private, nothing left over', async () => {
    const dir = tempDir();
    const db = luckyDb(dir, ['NAS', 'Desktop']);
    const c = clock();
    const snap = await new Snapshots(db, dir, { now: c.now }).take('test');
    expect(snap.name).toBe('lucky-20250110-120000.db');
    expect(snap.file).toBe(join(dir, 'snapshots', 'lucky-20250110-120000.db'));
    expect(rulesIn(snap.file)).toEqual(['Desktop', 'NAS']);
    expect(statSync(snap.file).mode & 0o777).toBe(0o600);
    // No -wal to carry along: the journal mode byte of the header says rollback (1), not WAL (2).
    expect(readFileSync(snap.file)[18]).toBe(1);
    expect(readdirSync(snapshotDir(dir))).toEqual(['lucky-20250110-120000.db']);
  });

  it('keeps the newest 7, in time order, and orders two taken in the same second', async () => {
    const dir = tempDir();
    const db = luckyDb(dir);
    const c = clock();
    const snaps = new Snapshots(db, dir, { now: c.now });
    for (let i = 0; i < 9; i++) {
      addRule(db, `rule-${i}`);
      await snaps.take('test');
      c.advance(3_600_000);
    }
    const kept = listSnapshots(dir);
    expect(kept.map((s) => s.name)).toEqual([
      'lucky-20250110-140000.db',
      'lucky-20250110-150000.db',
      'lucky-20250110-160000.db',
      'lucky-20250110-170000.db',
      'lucky-20250110-180000.db',
      'lucky-20250110-190000.db',
      'lucky-20250110-200000.db',
    ]);
    expect(rulesIn(kept[0]!.file)).toHaveLength(3);
    addRule(db, 'same-second');
    const again = await snaps.take('test');
    expect(again.name).toBe('lucky-20250110-210000.db');
    const third = await snaps.take('test');
    expect(third.name).toBe('lucky-20250110-210000-1.db');
    expect(newestSnapshot(dir)!.name).toBe('lucky-20250110-210000-1.db');
    expect(listSnapshots(dir)).toHaveLength(7);
    // Files that are not snapshots are not counted, and never removed.
    writeFileSync(join(snapshotDir(dir), 'notes.txt'), 'mine');
    await snaps.take('test');
    expect(readdirSync(snapshotDir(dir))).toContain('notes.txt');
  });

  it('takes the daily one when the newest is a day old, checking on a timer', async () => {
    const dir = tempDir();
    const db = luckyDb(dir);
    const c = clock();
    const snaps = new Snapshots(db, dir, { now: c.now });
    expect(await snaps.takeIfDue()).toBeDefined();
    c.advance(DAY_MS - 1000);
    expect(await snaps.takeIfDue()).toBeUndefined();
    c.advance(1000);
    snaps.startDaily(10);
    for (let i = 0; i < 200 && listSnapshots(dir).length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(listSnapshots(dir)).toHaveLength(2);
    // Due once, taken once: the timer keeps checking but the newest is now fresh.
    await new Promise((r) => setTimeout(r, 100));
    await snaps.close();
    expect(listSnapshots(dir)).toHaveLength(2);
  });

  it('two checks at once take one daily copy: the second sees the first being written', async () => {
    const dir = tempDir();
    const snaps = new Snapshots(luckyDb(dir), dir, { now: clock().now });
    const both = await Promise.all([snaps.takeIfDue(), snaps.takeIfDue()]);
    expect(both.filter(Boolean)).toHaveLength(1);
    expect(listSnapshots(dir)).toHaveLength(1);
    await snaps.close();
  });

  it('keeps no copy of a database that went bad while running, and the good ones stay', async () => {
    const dir = tempDir();
    const c = clock();
    let db = luckyDb(dir);
    for (let i = 0; i < 300; i++) addRule(db, `rule-${String(i).padStart(3, '0')}-${'x'.repeat(200)}`);
    const good = await new Snapshots(db, dir, { now: c.now }).take('test');
    db.close();
    corruptLastPage(join(dir, DB_FILE));
    db = new Database(join(dir, DB_FILE));
    open.push(db);
    c.advance(DAY_MS);
    await expect(new Snapshots(db, dir, { now: c.now }).take('test')).rejects.toThrow(/fails SQLite's check.*kept none/);
    expect(readdirSync(snapshotDir(dir))).toEqual([good.name]);
  });

  it('removes copies a crash left unfinished', async () => {
    const dir = tempDir();
    const db = luckyDb(dir);
    await new Snapshots(db, dir).take('test');
    writeFileSync(join(snapshotDir(dir), '.lucky-20250101-000000.db.tmp'), 'half');
    writeFileSync(join(snapshotDir(dir), '.lucky-20250101-000000.db.tmp-journal'), 'half');
    new Snapshots(db, dir);
    expect(readdirSync(snapshotDir(dir))).toHaveLength(1);
  });

  it('one before migrations that will run; none for a new database or when nothing is pending', async () => {
    const dir = tempDir();
    const db = openDb(dir);
    open.push(db);
    const snaps = new Snapshots(db, dir);
    const plan = [{ namespace: 'core', migrations: coreMigrations }];
    expect(await snapshotBeforeMigrations(db, snaps, plan)).toBeUndefined();
    migrate(db, 'core', coreMigrations.slice(0, 2));
    addRule(db, 'NAS');
    const snap = await snapshotBeforeMigrations(db, snaps, plan);
    expect(snap).toBeDefined();
    migrate(db, 'core', coreMigrations);
    // The snapshot is the database as it was before: schema 2, no api_tokens table yet, the rule.
    const copy = new Database(snap!.file, { readonly: true });
    expect(copy.prepare("SELECT MAX(version) AS v FROM schema_migrations WHERE namespace = 'core'").get()).toEqual({ v: 2 });
    expect(copy.prepare("SELECT name FROM sqlite_master WHERE name = 'api_tokens'").get()).toBeUndefined();
    copy.close();
    expect(rulesIn(snap!.file)).toEqual(['NAS']);
    expect(await snapshotBeforeMigrations(db, snaps, plan)).toBeUndefined();
    expect(listSnapshots(dir)).toHaveLength(1);
  });
});

describe('a damaged lucky.db', () => {
  it('is refused at open, as it is: cut short, or with pages that fail the check', () => {
    for (const damage of ['truncate', 'corrupt'] as const) {
      const dir = tempDir();
      const db = luckyDb(dir);
      for (let i = 0; i < 300; i++) addRule(db, `rule-${String(i).padStart(3, '0')}-${'x'.repeat(200)}`);
      db.close();
      const file = join(dir, DB_FILE);
      if (damage === 'truncate') truncateSync(file, Math.floor(statSync(file).size / 2));
      else corruptLastPage(file);
      const bytes = readFileSync(file);
      expect(() => openDb(dir), damage).toThrow(DamagedDbError);
      expect(() => openDb(dir), damage).toThrow(damage === 'truncate' ? /lucky\.db is damaged \(database disk image is malformed\)/ : /is damaged \(Tree \d+ page/);
      expect(readFileSync(file).equals(bytes), damage).toBe(true);
    }
  });

  it('emptied to 0 bytes with snapshots beside it is refused too; without snapshots it is a first start', async () => {
    const dir = tempDir();
    expect(() => refuseEmptiedDb(dir)).not.toThrow();
    writeFileSync(join(dir, DB_FILE), '');
    expect(() => refuseEmptiedDb(dir)).not.toThrow();
    const other = tempDir();
    await new Snapshots(luckyDb(other), dir).take('test');
    expect(() => refuseEmptiedDb(dir)).toThrow(/lucky\.db is damaged \(the file is empty\)/);
  });

  it('the advice names the newest snapshot and the flag, or says there is none', async () => {
    const dir = tempDir();
    const err = new DamagedDbError(join(dir, DB_FILE), 'database disk image is malformed');
    expect(damagedDbAdvice(err, dir, 'node main.js')).toMatch(/there is no snapshot in .*snapshots to go back to/);
    const c = clock();
    await new Snapshots(luckyDb(tempDir()), dir, { now: c.now }).take('test');
    const text = damagedDbAdvice(err, dir, 'node main.js --data-dir /x');
    expect(text).toContain(`the newest snapshot is ${join(dir, 'snapshots', 'lucky-20250110-120000.db')} (taken 2025-01-10 12:00:00 UTC)`);
    expect(text).toContain('run once:  node main.js --data-dir /x --restore-snapshot latest');
    expect(text.split('\n').every((l) => l === '' || l.startsWith('lucky: '))).toBe(true);
  });
});

describe('restoring a snapshot', () => {
  async function setUp() {
    const dir = tempDir();
    const db = luckyDb(dir, ['NAS']);
    const c = clock();
    const snaps = new Snapshots(db, dir, { now: c.now });
    const older = await snaps.take('test');
    addRule(db, 'Desktop');
    c.advance(60_000);
    const newer = await snaps.take('test');
    addRule(db, 'Printer');
    return { dir, db, older, newer };
  }

  it('latest: the damaged file and its -wal/-shm go aside untouched, the snapshot comes in and stays', async () => {
    const { dir, db, newer } = await setUp();
    db.close();
    const file = join(dir, DB_FILE);
    truncateSync(file, Math.floor(statSync(file).size / 2));
    writeFileSync(`${file}-wal`, 'wal bytes');
    const damaged = readFileSync(file);
    const snapshot = readFileSync(newer.file);
    const r = restoreSnapshot(dir, 'latest', Date.UTC(2025, 0, 11, 8, 30, 0));
    // The -wal that was there goes along; no -shm was, and none appears.
    expect(r).toEqual({
      snapshot: newer.file,
      damaged: true,
      aside: [`${file}.damaged-20250111-083000`, `${file}.damaged-20250111-083000-wal`],
    });
    expect(readFileSync(r.aside[0]!).equals(damaged)).toBe(true);
    expect(readFileSync(r.aside[1]!, 'utf8')).toBe('wal bytes');
    expect(readFileSync(newer.file).equals(snapshot)).toBe(true);
    expect(existsSync(`${file}-wal`)).toBe(false);
    const reopened = openDb(dir);
    open.push(reopened);
    expect(rulesIn(file)).toEqual(['Desktop', 'NAS']);
  });

  it('by name or by path; a healthy file it replaces is kept as .replaced', async () => {
    const { dir, db, older } = await setUp();
    db.close();
    const r = restoreSnapshot(dir, older.name, Date.UTC(2025, 0, 11, 8, 30, 0));
    expect(r.damaged).toBe(false);
    expect(r.aside).toEqual([join(dir, `${DB_FILE}.replaced-20250111-083000`)]);
    expect(rulesIn(r.aside[0]!)).toEqual(['Desktop', 'NAS', 'Printer']);
    expect(rulesIn(join(dir, DB_FILE))).toEqual(['NAS']);
    const elsewhere = join(tempDir(), 'copy.db');
    copyFileSync(older.file, elsewhere);
    rmSync(join(dir, DB_FILE));
    expect(restoreSnapshot(dir, elsewhere)).toMatchObject({ snapshot: elsewhere, aside: [], damaged: false });
  });

  it('refuses what is missing, not a database, not Lucky\'s, or damaged, and changes nothing', async () => {
    const { dir, db } = await setUp();
    db.close();
    const file = join(dir, DB_FILE);
    const before = readFileSync(file);
    const junk = join(dir, 'junk.db');
    writeFileSync(junk, 'not sqlite at all, just text that is long enough to be read as a header...');
    const foreign = join(dir, 'foreign.db');
    new Database(foreign).exec('CREATE TABLE t (a)');
    const broken = join(dir, 'broken.db');
    copyFileSync(newestSnapshot(dir)!.file, broken);
    truncateSync(broken, Math.floor(statSync(broken).size / 2));
    expect(() => restoreSnapshot(tempDir(), 'latest')).toThrow(/there is no snapshot in/);
    expect(() => restoreSnapshot(dir, 'lucky-19990101-000000.db')).toThrow(/no such file, here or in/);
    expect(() => restoreSnapshot(dir, junk)).toThrow(/junk\.db: it is not a usable database \(file is not a database\)/);
    expect(() => restoreSnapshot(dir, foreign)).toThrow(/it is not a Lucky database/);
    expect(() => restoreSnapshot(dir, broken)).toThrow(/broken\.db: it is not a usable database \(database disk image is malformed\)/);
    const scribbled = join(dir, 'scribbled.db');
    const big = new Database(scribbled);
    big.exec('CREATE TABLE schema_migrations (a); CREATE TABLE t (a)');
    for (let i = 0; i < 300; i++) big.prepare('INSERT INTO t VALUES (?)').run('x'.repeat(200));
    big.close();
    corruptLastPage(scribbled);
    expect(() => restoreSnapshot(dir, scribbled)).toThrow(/scribbled\.db: it fails SQLite's check \(.*page/);
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(readdirSync(dir).filter((n) => n.startsWith(DB_FILE))).toEqual([DB_FILE]);
  });
});
