/**
 * `--restore-snapshot <file|latest>`: puts a snapshot back as lucky.db. The snapshot is checked on a
 * copy and stays as it is; the file it replaces (with its -wal and -shm) is moved aside, never deleted.
 */
import Database from 'better-sqlite3';
import { copyFileSync, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { syncDir } from './atomicfile.js';
import { DB_FILE, type DamagedDbError, problems, quickCheck } from './db.js';
import { fileStamp, newestSnapshot, removeDbFiles, snapshotDir } from './snapshots.js';

export const RESTORE_FLAG = '--restore-snapshot';

export class RestoreError extends Error {}

export interface Restored {
  snapshot: string;
  /** Where the replaced lucky.db and its -wal/-shm went. */
  aside: string[];
  /** Whether the replaced lucky.db was damaged (otherwise it was only rolled back). */
  damaged: boolean;
}

/** `latest`, a path, or the name of a file in the snapshot folder. */
export function resolveSnapshot(dataDir: string, which: string): string {
  if (which === 'latest') {
    const newest = newestSnapshot(dataDir);
    if (!newest) throw new RestoreError(`there is no snapshot in ${snapshotDir(dataDir)}`);
    return newest.file;
  }
  for (const candidate of [resolve(which), join(snapshotDir(dataDir), which)]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  throw new RestoreError(`${which}: no such file, here or in ${snapshotDir(dataDir)}`);
}

/** The full integrity check (a restore happens once; it may take its time), and Lucky's own table. */
function verifyCopy(file: string): void {
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { fileMustExist: true });
    const problem = problems(db.pragma('integrity_check(3)') as { integrity_check: string }[]);
    if (problem) throw new RestoreError(`it fails SQLite's check (${problem})`);
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get()) {
      throw new RestoreError('it is not a Lucky database (no schema_migrations table)');
    }
  } catch (err) {
    if (err instanceof RestoreError) throw err;
    throw new RestoreError(`it is not a usable database (${(err as Error).message})`);
  } finally {
    db?.close();
  }
}

/**
 * Read-only, so that looking changes nothing in it (a writer would fold its -wal in). Opening may
 * create an empty -wal and -shm: those are removed again, so that only what was there is moved aside.
 */
function isDamaged(file: string): boolean {
  const companions = ['-wal', '-shm'].map((ext) => file + ext).filter((f) => !existsSync(f));
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return quickCheck(db) !== undefined;
    } finally {
      db.close();
    }
  } catch {
    return true;
  } finally {
    for (const f of companions) rmSync(f, { force: true });
  }
}

function moveAside(file: string, suffix: string): string[] {
  const moved: string[] = [];
  for (const ext of ['', '-wal', '-shm']) {
    if (!existsSync(file + ext)) continue;
    // `<name>.<suffix>-wal` next to `<name>.<suffix>`: SQLite opens the pair together again.
    renameSync(file + ext, `${file}.${suffix}${ext}`);
    moved.push(`${file}.${suffix}${ext}`);
  }
  return moved;
}

export function restoreSnapshot(dataDir: string, which: string, now = Date.now()): Restored {
  const snapshot = resolveSnapshot(dataDir, which);
  const target = join(dataDir, DB_FILE);
  const incoming = `${target}.restoring`;
  removeDbFiles(incoming);
  copyFileSync(snapshot, incoming);
  try {
    verifyCopy(incoming);
  } catch (err) {
    removeDbFiles(incoming);
    throw new RestoreError(`${snapshot}: ${(err as Error).message}`);
  }
  const damaged = existsSync(target) && isDamaged(target);
  const aside = moveAside(target, `${damaged ? 'damaged' : 'replaced'}-${fileStamp(now)}`);
  renameSync(incoming, target);
  syncDir(dataDir);
  return { snapshot, aside, damaged };
}

/** What main.ts prints when lucky.db is damaged: what happened, and the way back if there is one. */
export function damagedDbAdvice(err: DamagedDbError, dataDir: string, command: string): string {
  const newest = newestSnapshot(dataDir);
  const lines = [`refusing to start: ${err.message}; it is left as it is`];
  if (newest) {
    const taken = new Date(newest.takenAt).toISOString().replace('T', ' ').slice(0, 19);
    lines.push(
      `the newest snapshot is ${newest.file} (taken ${taken} UTC)`,
      `to start from it, run once:  ${command} ${RESTORE_FLAG} latest`,
      `(or ${RESTORE_FLAG} <file> for an older one in ${snapshotDir(dataDir)}), then start Lucky as usual;`,
      `the damaged ${DB_FILE} is kept beside it as ${DB_FILE}.damaged-<time>`,
    );
  } else {
    lines.push(`there is no snapshot in ${snapshotDir(dataDir)} to go back to; move ${DB_FILE} aside to start with an empty database`);
  }
  return lines.map((l) => `lucky: ${l}\n`).join('');
}
