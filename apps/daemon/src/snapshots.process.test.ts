/**
 * Database snapshots with the built daemon as a real process: daily at start and pruned to 7, a
 * damaged lucky.db refused with the way back named, --restore-snapshot, and the snapshots taken
 * before a migration and before a configuration restore.
 */
import Database from 'better-sqlite3';
import { copyFileSync, readdirSync, readFileSync, renameSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DB_FILE } from './core/db.js';
import { DAY_MS, fileStamp, listSnapshots, SNAPSHOT_KEEP } from './core/snapshots.js';
import { freePort } from './test/harness.js';
import { api, cleanUp, login, run, tempDir, waitFor } from './test/proc.js';

afterAll(cleanUp);

const PASSWORD = 'snap-pw-1';

/** A daemon on a fresh port over `dir`, logged in; `stop` ends it with SIGTERM. */
async function start(dir: string) {
  const port = await freePort();
  const d = run(['--port', String(port), '--host', '127.0.0.1', '--data-dir', dir], { LUCKY_ADMIN_PASSWORD: PASSWORD });
  await waitFor(d, /listening on/);
  const { token } = await login(port, PASSWORD);
  const call = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) => api<T>(port, method, path, body, token);
  const rules = async () => (await call<{ list: { name: string }[] }>('GET', '/api/wol/rules')).list.map((r) => r.name);
  const addRule = async (name: string) => expect((await call('POST', '/api/wol/rules', { name, macs: ['00:11:22:33:44:55'] })).ret).toBe(0);
  const stop = async () => {
    d.proc.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  };
  return { d, port, call, rules, addRule, stop };
}

/** The wol rule names in a database file, read-only. */
function rulesIn(file: string): string[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare("SELECT data FROM rules WHERE module = 'wol' ORDER BY position").all() as { data: string }[]).map((r) => (JSON.parse(r.data) as { name: string }).name);
  } finally {
    db.close();
  }
}

describe('database snapshots', () => {
  it('daily at start and pruned; a damaged lucky.db is refused with the way back; --restore-snapshot brings the snapshot back', async () => {
    const dir = tempDir();
    const snapDir = join(dir, 'snapshots');
    let s = await start(dir);
    await s.addRule('NAS');
    await s.stop();
    // The first start took one (of the new, empty database).
    const first = listSnapshots(dir);
    expect(first).toHaveLength(1);

    // Make it and eight more look 2 to 10 days old: the next start finds the newest over a day old.
    const now = Date.now();
    for (let i = 0; i < 9; i++) copyFileSync(first[0]!.file, join(snapDir, `lucky-${fileStamp(now - (10 - i) * DAY_MS)}.db`));
    renameSync(first[0]!.file, join(snapDir, `lucky-${fileStamp(now - 2 * DAY_MS + 1000)}.db`));
    expect(listSnapshots(dir)).toHaveLength(10);

    s = await start(dir);
    const kept = listSnapshots(dir);
    expect(kept).toHaveLength(SNAPSHOT_KEEP);
    const today = kept.at(-1)!;
    expect(Date.now() - today.takenAt).toBeLessThan(60_000);
    expect(kept[0]!.name).toBe(`lucky-${fileStamp(now - 6 * DAY_MS)}.db`);
    expect(rulesIn(today.file)).toEqual(['NAS']);
    expect(s.d.out()).toMatch(/database snapshot \S+lucky-\d{8}-\d{6}\.db taken \(daily\)/);
    await s.addRule('Desktop');
    await s.stop();

    // Cut lucky.db short: no start, no silent reset; the way back is named.
    const db = join(dir, DB_FILE);
    truncateSync(db, Math.floor(statSync(db).size / 2));
    const damaged = readFileSync(db);
    const refused = run(['--data-dir', dir]);
    expect(await refused.exited).toBe(1);
    const text = refused.out();
    expect(text).toContain(`lucky: refusing to start: ${db} is damaged (database disk image is malformed)`);
    expect(text).toContain(`the newest snapshot is ${today.file}`);
    expect(text).toMatch(/run once: {2}node \S+main\.js --data-dir \S+ --restore-snapshot latest/);
    expect(readFileSync(db).equals(damaged)).toBe(true);

    const restore = run(['--data-dir', dir, '--restore-snapshot', 'latest']);
    expect(await restore.exited).toBe(0);
    expect(restore.out()).toContain(`lucky: ${db} restored from ${today.file}`);
    expect(restore.out()).toContain('start Lucky again without --restore-snapshot');
    // Stopped cleanly, the damaged file had no -wal or -shm: it goes aside alone.
    const aside = readdirSync(dir).filter((n) => n.startsWith(`${DB_FILE}.`));
    expect(aside).toHaveLength(1);
    expect(aside[0]).toMatch(/^lucky\.db\.damaged-\d{8}-\d{6}$/);
    expect(readFileSync(join(dir, aside[0]!)).equals(damaged)).toBe(true);

    // Up again with what the snapshot holds: the rule added after it is the one thing lost.
    s = await start(dir);
    expect(await s.rules()).toEqual(['NAS']);
    await s.stop();
    expect(listSnapshots(dir).at(-1)!.name).toBe(today.name);
  });

  it('takes one before a migration runs, holding the database as it was', async () => {
    const dir = tempDir();
    let s = await start(dir);
    await s.addRule('NAS');
    await s.stop();
    // Roll the core schema back to version 4, as an older version left it: before rule owners (5)
    // and the login locks (6). A newer core migration is rolled back here too when one is added.
    const older = new Database(join(dir, DB_FILE));
    older.exec("ALTER TABLE rules DROP COLUMN owner; DROP TABLE login_locks; DELETE FROM schema_migrations WHERE namespace = 'core' AND version >= 5");
    older.close();
    const before = listSnapshots(dir).length;

    s = await start(dir);
    expect(s.d.out()).toMatch(/taken \(before migrating core 5, core 6\)/);
    const snaps = listSnapshots(dir);
    expect(snaps).toHaveLength(before + 1);
    const columns = (db: Database.Database) => db.prepare<[], { name: string }>('PRAGMA table_info(rules)').all().map((c) => c.name);
    const snap = new Database(snaps.at(-1)!.file, { readonly: true });
    expect(snap.prepare("SELECT MAX(version) AS v FROM schema_migrations WHERE namespace = 'core'").get()).toEqual({ v: 4 });
    expect(columns(snap)).not.toContain('owner');
    snap.close();
    expect(rulesIn(snaps.at(-1)!.file)).toEqual(['NAS']);
    // And the migration ran: rule views carry their owner again.
    const listed = await s.call<{ list: Array<{ owner: unknown }> }>('GET', '/api/wol/rules');
    expect(listed.list).toEqual([expect.objectContaining({ owner: null })]);
    await s.stop();
  });

  it('takes one before a configuration restore, holding the rules it replaces', async () => {
    const dir = tempDir();
    const s = await start(dir);
    await s.addRule('NAS');
    const backup = await (await fetch(`http://127.0.0.1:${s.port}/api/configure?secrets=1`, { headers: { 'lucky-admin-token': (await login(s.port, PASSWORD)).token } })).text();
    await s.addRule('Printer');
    const before = listSnapshots(dir).length;
    const staged = await s.call<{ key: string }>('POST', '/api/configure', JSON.parse(backup));
    expect(staged.ret).toBe(0);
    expect((await s.call('GET', `/api/restoreconfigureconfirm?key=${staged.key}`)).ret).toBe(0);
    expect(await s.rules()).toEqual(['NAS']);
    const snaps = listSnapshots(dir);
    expect(snaps).toHaveLength(before + 1);
    expect(rulesIn(snaps.at(-1)!.file)).toEqual(['NAS', 'Printer']);
    expect(s.d.out()).toMatch(/before restoring a configuration backup/);
    await s.stop();
  });
});
