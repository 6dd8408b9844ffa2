/**
 * Configuration backups: one JSON file with the base settings and every module's rules and
 * settings, and, with secrets, the stores kept beside the rules (certificates and their keys, ACME
 * account keys). Secrets are masked unless asked for, and those stores left out; a restore is
 * validated whole, shown as a summary, and applied only when confirmed — a bad or foreign file
 * changes nothing.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { BACKUP_STORE_ROWS, maskSecrets, restoreSecrets, upgradeRuleData, ZBaseConfigFile, ZRuleOwner, type BackupSummary, type BaseConfigFile, type RuleOwner } from '@lucky/contracts';
import type { AnyBackupPart } from '../core/backupparts.js';
import { upgradeBaseConfig, type BaseConfigStore } from '../core/baseconfig.js';
import type { Db } from '../core/db.js';
import { writeFileAtomic } from '../core/atomicfile.js';
import type { ModuleData } from '../core/modulehost.js';
import { parseOwner } from '../core/rulestore.js';
import type { BackupWritten } from '../core/services/index.js';

export const BACKUP_FORMAT = 'lucky-backup';
const BASE_SECRETS = ['AdminPasswordHash', 'TwoFASecret', 'TwoFARecoveryHashes'] as const;
/** Restoring never moves the admin listener: a backup from another machine must not lock the user out. */
const BASE_KEPT = ['AdminWebListenHost', 'AdminWebListenPort'] as const;

const ZStoredRule = z.object({
  key: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  data: z.unknown(),
  created: z.number(),
  updated: z.number(),
  /** The other module's object the rule was made for; files of older versions have none (null). */
  owner: ZRuleOwner.nullable().default(null),
});
export const ZBackupFile = z.object({
  format: z.literal(BACKUP_FORMAT),
  version: z.literal(1),
  app: z.string(),
  created: z.number(),
  secrets: z.boolean(),
  base: z.record(z.string(), z.unknown()),
  modules: z.record(z.string(), z.object({ rules: z.array(ZStoredRule).max(10_000), settings: z.unknown().nullable() })),
  /** Only in a backup with secrets (files of older versions have none). */
  stores: z.record(z.string(), z.array(z.unknown()).max(100_000)).optional(),
});
export type BackupFile = z.infer<typeof ZBackupFile>;

interface RuleRow {
  module: string;
  key: string;
  data: string;
  created_at: number;
  updated_at: number;
  owner: string | null;
}

/** A module's rule as a backup carries it. */
interface BackupRule {
  key: string;
  data: unknown;
  created: number;
  updated: number;
  owner: RuleOwner | null;
}

export function createBackup(opts: {
  db: Db;
  config: BaseConfigStore;
  modules: readonly ModuleData[];
  version: string;
  secrets: boolean;
  /** The stores a backup with secrets carries (ignored without secrets). */
  parts?: readonly AnyBackupPart[];
}): BackupFile {
  const { db, config, secrets } = opts;
  const base: Record<string, unknown> = { ...config.get() };
  if (!secrets) for (const k of BASE_SECRETS) delete base[k];
  const modules: BackupFile['modules'] = {};
  // Every module that keeps rules declares their schemas (modules/index.test.ts checks it).
  for (const def of opts.modules.filter((m) => m.data)) {
    const rows = db.prepare<[string], RuleRow>('SELECT * FROM rules WHERE module = ? ORDER BY position, created_at').all(def.key);
    const settingsRow = db.prepare<[string], { data: string }>('SELECT data FROM module_settings WHERE module = ?').get(def.key);
    const rules = rows.map((r): BackupRule => ({ key: r.key, data: JSON.parse(r.data) as unknown, created: r.created_at, updated: r.updated_at, owner: parseOwner(r.owner) }));
    const settings = settingsRow ? (JSON.parse(settingsRow.data) as unknown) : null;
    const { rule, settings: settingsSchema } = def.data!;
    // Without secrets: what each module's contract declares secret is masked.
    modules[def.key] = secrets ? { rules, settings } : { rules: rules.map((r) => ({ ...r, data: maskSecrets(rule, r.data) })), settings: maskSecrets(settingsSchema, settings) };
  }
  const stores = secrets ? Object.fromEntries((opts.parts ?? []).map((p) => [p.name, p.dump()])) : undefined;
  return { format: BACKUP_FORMAT, version: 1, app: opts.version, created: Date.now(), secrets, base, modules, ...(stores ? { stores } : {}) };
}

/** The file's name as the download offers it: `lucky-backup-20260325T101500` in UTC, digits only. */
export function backupFileName(created: number): string {
  return `lucky-backup-${new Date(created).toISOString().slice(0, 19).replace(/[-:T]/g, '')}.json`;
}

/** The file's bytes, the same for the download and a backup written by a scheduled task. */
export function backupText(backup: BackupFile): string {
  return JSON.stringify(backup, null, 1);
}

const BACKUP_NAME = /^lucky-backup-\d{14}(-\d+)?\.json$/;

/**
 * Writes the download's file into a folder (atomically, 0600: it may hold secrets), then removes
 * the oldest backups of that folder beyond `keep`. Only files named as backups are ever removed.
 */
export async function writeBackupFile(folder: string, opts: { keep: number; make: () => BackupFile }): Promise<BackupWritten> {
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const backup = opts.make();
  const text = backupText(backup);
  const base = backupFileName(backup.created).replace(/\.json$/, '');
  const names = new Set(await readdir(folder));
  let name = `${base}.json`;
  // Two backups within one second: numbered, so the newer one sorts after.
  for (let i = 1; names.has(name); i++) name = `${base}-${i}.json`;
  const path = join(folder, name);
  writeFileAtomic(path, text);
  const backups = [...names, name].filter((n) => BACKUP_NAME.test(n)).sort(byAge);
  const removed: string[] = [];
  for (const old of backups.slice(0, Math.max(0, backups.length - opts.keep))) {
    await rm(join(folder, old), { force: true });
    removed.push(old);
  }
  return { path, bytes: Buffer.byteLength(text), removed };
}

/** Oldest first: by the stamp, then by the number added within one second. */
function byAge(a: string, b: string): number {
  const key = (n: string) => {
    const m = /^lucky-backup-(\d{14})(?:-(\d+))?\.json$/.exec(n)!;
    return [m[1]!, Number(m[2] ?? 0)] as const;
  };
  const [sa, na] = key(a);
  const [sb, nb] = key(b);
  return sa < sb ? -1 : sa > sb ? 1 : na - nb;
}

export class BackupError extends Error {}

export interface PreparedRestore {
  base: BaseConfigFile;
  modules: Record<string, { rules: BackupRule[]; settings: unknown }>;
  stores: Array<{ part: AnyBackupPart; rows: unknown[] }>;
  summary: BackupSummary;
}

/** The stores of a file, each row checked by its part; BackupError naming the first problem. */
function prepareStores(b: BackupFile, parts: readonly AnyBackupPart[]): PreparedRestore['stores'] {
  const out: PreparedRestore['stores'] = [];
  for (const [name, rows] of Object.entries(b.stores ?? {})) {
    if (!b.secrets) throw new BackupError(`stores.${name}: only a backup with secrets carries it`);
    const part = parts.find((p) => p.name === name);
    const schema = BACKUP_STORE_ROWS[name as keyof typeof BACKUP_STORE_ROWS];
    if (!part || !schema) throw new BackupError(`stores.${name}: this version keeps no "${name}"`);
    const checked = rows.map((row, i) => {
      const parsed = schema.safeParse(row);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new BackupError(`stores.${name}[${i}].${issue?.path.join('.')}: ${issue?.message}`);
      }
      const problem = (part.check as ((r: unknown) => string | null) | undefined)?.(parsed.data);
      if (problem) throw new BackupError(`stores.${name}[${i}]: ${problem}`);
      return parsed.data;
    });
    out.push({ part, rows: checked });
  }
  return out;
}

/** Checks everything a restore would write; throws BackupError naming the first problem. */
export function prepareRestore(raw: unknown, opts: { db: Db; config: BaseConfigStore; modules: readonly ModuleData[]; parts?: readonly AnyBackupPart[] }): PreparedRestore {
  const file = ZBackupFile.safeParse(raw);
  if (!file.success) {
    const i = file.error.issues[0];
    throw new BackupError(`${i?.path.join('.') || 'file'}: ${i?.message ?? 'not a Lucky backup'}`);
  }
  const b = file.data;
  const current = opts.config.get();
  const baseInput: Record<string, unknown> = { ...b.base };
  for (const k of BASE_SECRETS) if (!(k in baseInput)) baseInput[k] = current[k];
  for (const k of BASE_KEPT) baseInput[k] = current[k];
  const base = ZBaseConfigFile.safeParse(upgradeBaseConfig(baseInput));
  if (!base.success) {
    const i = base.error.issues[0];
    throw new BackupError(`base.${i?.path.join('.')}: ${i?.message}`);
  }
  const changedBase = Object.keys(base.data).filter(
    (k) => JSON.stringify(base.data[k as keyof BaseConfigFile]) !== JSON.stringify(current[k as keyof BaseConfigFile]),
  );

  const modules: PreparedRestore['modules'] = {};
  const summaryModules: BackupSummary['modules'] = {};
  for (const [key, m] of Object.entries(b.modules)) {
    const def = opts.modules.find((d) => d.key === key);
    if (!def?.data) throw new BackupError(`modules.${key}: this version has no module "${key}"`);
    const existing = new Map(
      opts.db
        .prepare<[string], RuleRow>('SELECT * FROM rules WHERE module = ?')
        .all(key)
        .map((r) => [r.key, { data: JSON.parse(r.data) as unknown, owner: parseOwner(r.owner) }]),
    );
    const rules = m.rules.map((r, i) => {
      // A backup written before a field was renamed carries it under its old name.
      const data = restoreSecrets(def.data!.rule, upgradeRuleData(key, r.data), existing.get(r.key)?.data);
      const parsed = def.data!.rule.safeParse(data);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new BackupError(`modules.${key}.rules[${i}].${issue?.path.join('.')}: ${issue?.message}`);
      }
      return { ...r, data: parsed.data };
    });
    const keys = new Set(rules.map((r) => r.key));
    if (keys.size !== rules.length) throw new BackupError(`modules.${key}: duplicate rule keys`);
    const curSettingsRow = opts.db.prepare<[string], { data: string }>('SELECT data FROM module_settings WHERE module = ?').get(key);
    // Both may have been written by an earlier version.
    const upgrade = def.data.upgradeSettings ?? ((s: unknown) => s);
    const curSettings = curSettingsRow ? upgrade(JSON.parse(curSettingsRow.data) as unknown) : undefined;
    let settings: unknown = null;
    if (m.settings !== null) {
      const parsed = def.data.settings.safeParse(restoreSecrets(def.data.settings, upgrade(m.settings), curSettings));
      if (!parsed.success) throw new BackupError(`modules.${key}.settings: ${parsed.error.issues[0]?.message}`);
      settings = parsed.data;
    }
    modules[key] = { rules, settings };
    summaryModules[key] = {
      add: rules.filter((r) => !existing.has(r.key)).length,
      // A rule whose owner alone changes is changed too.
      update: rules.filter((r) => existing.has(r.key) && JSON.stringify(existing.get(r.key)) !== JSON.stringify({ data: r.data, owner: r.owner })).length,
      remove: [...existing.keys()].filter((k) => !keys.has(k)).length,
      settings: settings !== null && JSON.stringify(settings) !== JSON.stringify(curSettings),
    };
  }
  const stores = prepareStores(b, opts.parts ?? []);
  return {
    base: base.data,
    modules,
    stores,
    summary: {
      base: changedBase,
      modules: summaryModules,
      stores: Object.fromEntries(stores.map((st) => [st.part.name, st.rows.length])),
      secretsIncluded: b.secrets,
      created: b.created,
      version: b.app,
    },
  };
}

/** Writes a prepared restore: the base file, then all module data in one transaction (the base is put back if that fails). */
export function applyRestore(p: PreparedRestore, opts: { db: Db; config: BaseConfigStore }): void {
  const { db, config } = opts;
  const previous = config.get();
  config.update(p.base);
  try {
    db.transaction(() => {
    for (const [key, m] of Object.entries(p.modules)) {
      db.prepare('DELETE FROM rules WHERE module = ?').run(key);
      const insert = db.prepare('INSERT INTO rules (module, key, position, data, created_at, updated_at, owner) VALUES (?, ?, ?, ?, ?, ?, ?)');
      m.rules.forEach((r, i) => insert.run(key, r.key, i + 1, JSON.stringify(r.data), r.created, r.updated, r.owner ? JSON.stringify(r.owner) : null));
      if (m.settings !== null) {
        db.prepare(
          'INSERT INTO module_settings (module, data, updated_at) VALUES (?, ?, ?) ON CONFLICT(module) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at',
        ).run(key, JSON.stringify(m.settings), Date.now());
      }
    }
    for (const st of p.stores) (st.part.restore as (rows: unknown[]) => void)(st.rows);
    })();
  } catch (err) {
    config.update(previous);
    throw err;
  }
}

/** Restores waiting for confirmation, by random key, for ten minutes. */
export class PendingRestores {
  private pending = new Map<string, { restore: PreparedRestore; expires: number }>();

  add(restore: PreparedRestore): string {
    const key = randomBytes(16).toString('hex');
    for (const [k, v] of this.pending) if (v.expires < Date.now()) this.pending.delete(k);
    this.pending.set(key, { restore, expires: Date.now() + 10 * 60_000 });
    return key;
  }

  take(key: string): PreparedRestore | undefined {
    const p = this.pending.get(key);
    this.pending.delete(key);
    return p && p.expires >= Date.now() ? p.restore : undefined;
  }
}
