/**
 * Automatic snapshots of lucky.db in <data dir>/snapshots/lucky-YYYYMMDD-HHMMSS.db (UTC), copied with
 * SQLite's online backup while the daemon runs: daily, before migrations, before a configuration
 * restore. The newest SNAPSHOT_KEEP are kept. A damaged lucky.db starts again from one of them
 * (snapshotrestore.ts, `--restore-snapshot`).
 */
import Database from 'better-sqlite3';
import { chmodSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { syncDir } from './atomicfile.js';
import { DB_FILE, DamagedDbError, hasHistory, pendingMigrations, quickCheck, type Db, type Migration } from './db.js';
import type { MsgValue } from '@lucky/contracts';
import { sayer, type Logger, type Say } from './logs.js';

export const SNAPSHOT_DIR = 'snapshots';
export const SNAPSHOT_KEEP = 7;
export const DAY_MS = 86_400_000;
const NAME = /^lucky-(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})(?:-(\d+))?\.db$/;
/** A copy still being written: never listed, removed when found at start. */
const UNFINISHED = /^\.lucky-.*\.tmp(-journal|-wal|-shm)?$/;

export interface Snapshot {
  name: string;
  file: string;
  /** When it was taken, to the second, read from its name. */
  takenAt: number;
  /** Orders snapshots taken within the same second. */
  seq: number;
}

export const snapshotDir = (dataDir: string) => join(dataDir, SNAPSHOT_DIR);

/** YYYYMMDD-HHMMSS in UTC: sorts like time, and stays unambiguous when the clocks change. */
export function fileStamp(t: number): string {
  return new Date(t).toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
}

function parseName(name: string, dir: string): Snapshot | undefined {
  const m = NAME.exec(name);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  return { name, file: join(dir, name), takenAt: Date.UTC(y, mo - 1, d, h, mi, s), seq: Number(m[7] ?? 0) };
}

/** Oldest first. */
export function listSnapshots(dataDir: string): Snapshot[] {
  const dir = snapshotDir(dataDir);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .flatMap((name) => parseName(name, dir) ?? [])
    .sort((a, b) => a.takenAt - b.takenAt || a.seq - b.seq);
}

export function newestSnapshot(dataDir: string): Snapshot | undefined {
  return listSnapshots(dataDir).at(-1);
}

/**
 * A lucky.db cut to 0 bytes opens as a new, empty database. With snapshots beside it, it is a
 * lost database rather than a first start: refused like a damaged one.
 */
export function refuseEmptiedDb(dataDir: string): void {
  const file = join(dataDir, DB_FILE);
  if (existsSync(file) && statSync(file).size === 0 && newestSnapshot(dataDir)) throw new DamagedDbError(file, 'the file is empty');
}

export function removeDbFiles(file: string): void {
  for (const f of [file, `${file}-journal`, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
}

/** Makes a fresh copy self-contained (no -wal beside it), checks it, and flushes it to disk. */
function settle(file: string): void {
  const copy = new Database(file, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE');
    const problem = quickCheck(copy);
    // A database that went bad while running must not push the good snapshots out.
    if (problem) throw new Error(`the copy fails SQLite's check (${problem}): kept none`);
  } finally {
    copy.close();
  }
  chmodSync(file, 0o600);
  const fd = openSync(file, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export interface SnapshotOptions {
  keep?: number;
  now?: () => number;
  log?: Logger;
}

export class Snapshots {
  private readonly dir: string;
  private readonly keep: number;
  private readonly now: () => number;
  private readonly say: Say | undefined;
  /** One copy at a time, in the order asked. */
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private db: Db,
    private dataDir: string,
    opts: SnapshotOptions = {},
  ) {
    this.dir = snapshotDir(dataDir);
    this.keep = opts.keep ?? SNAPSHOT_KEEP;
    this.now = opts.now ?? Date.now;
    this.say = opts.log && sayer(opts.log);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.removeUnfinished();
  }

  /** Takes one (after any still being taken), then prunes to the newest `keep`. */
  take(reason: MsgValue): Promise<Snapshot> {
    return this.enqueue(() => this.write(reason));
  }

  /**
   * The daily one: taken when the newest is a day old, or there is none. Checked in the queue, so a
   * check while a copy is still being written sees that copy and does not take a second one.
   */
  takeIfDue(): Promise<Snapshot | undefined> {
    return this.enqueue(() => {
      const newest = newestSnapshot(this.dataDir);
      if (newest && this.now() - newest.takenAt < DAY_MS) return Promise.resolve(undefined);
      return this.write({ key: 'snapDaily' });
    });
  }

  private enqueue<T>(job: () => Promise<T>): Promise<T> {
    const next = this.queue.then(job);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Checks every hour rather than sleeping a day: a suspended machine or a clock change skips no day. */
  startDaily(everyMs = 3_600_000): void {
    clearInterval(this.timer);
    this.timer = setInterval(() => {
      this.takeIfDue().catch((err: unknown) => this.say?.error({ key: 'logSnapshotFailed', vars: { detail: (err as Error).message } }, { err }));
    }, everyMs);
    this.timer.unref();
  }

  /** Stops the daily timer and waits for a copy in progress: the database may be closed after. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.queue;
  }

  private async write(reason: MsgValue): Promise<Snapshot> {
    const name = this.freeName();
    const file = join(this.dir, name);
    const tmp = join(this.dir, `.${name}.tmp`);
    try {
      await this.db.backup(tmp);
      settle(tmp);
      renameSync(tmp, file);
      syncDir(this.dir);
    } finally {
      removeDbFiles(tmp);
    }
    this.say?.info({ key: 'logSnapshotTaken', vars: { file, reason } });
    this.prune();
    return parseName(name, this.dir)!;
  }

  private freeName(): string {
    const base = `lucky-${fileStamp(this.now())}`;
    for (let seq = 0; ; seq++) {
      const name = seq ? `${base}-${seq}.db` : `${base}.db`;
      if (!existsSync(join(this.dir, name))) return name;
    }
  }

  private prune(): void {
    const all = listSnapshots(this.dataDir);
    for (const old of all.slice(0, Math.max(0, all.length - this.keep))) {
      rmSync(old.file, { force: true });
      this.say?.info({ key: 'logSnapshotRemoved', vars: { file: old.file } });
    }
  }

  private removeUnfinished(): void {
    for (const name of readdirSync(this.dir)) if (UNFINISHED.test(name)) rmSync(join(this.dir, name), { force: true });
  }
}

export interface MigrationPlan {
  namespace: string;
  migrations: readonly Migration[];
}

/** One snapshot before the migrations about to run, unless the database is new (nothing to lose). */
export async function snapshotBeforeMigrations(db: Db, snapshots: Snapshots, plan: readonly MigrationPlan[]): Promise<Snapshot | undefined> {
  const pending = plan.flatMap((p) => pendingMigrations(db, p.namespace, p.migrations).map((m) => `${p.namespace} ${m.version}`));
  if (pending.length === 0 || !hasHistory(db)) return undefined;
  return snapshots.take({ key: 'snapBeforeMigrations', vars: { list: pending.join(', ') } });
}
