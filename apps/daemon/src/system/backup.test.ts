/**
 * Rule owners in configuration backups, on real SQLite files: written with each rule, restored with
 * it, and a file of an earlier version (no owners) restores its rules as the user's own.
 * (Backups through the real app: maintenance.test.ts.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wolContract } from '@lucky/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { openBaseConfig } from '../core/baseconfig.js';
import { coreMigrations, migrate, openDb, type Db } from '../core/db.js';
import { createProgramLog } from '../core/logs.js';
import type { ModuleData } from '../core/modulehost.js';
import { RuleStore } from '../core/rulestore.js';
import { applyRestore, backupText, createBackup, prepareRestore } from './backup.js';

const MODULES: ModuleData[] = [{ key: 'wol', data: { rule: wolContract.rule, settings: wolContract.configure } }];
const HA = { module: 'publish', key: 'svc1', name: 'Home Assistant' };

const dirs: string[] = [];
const open: Db[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** An install: its lucky.db with the core tables, its base settings, its WOL rules. */
async function install() {
  const dir = mkdtempSync(join(tmpdir(), 'lucky-backup-'));
  dirs.push(dir);
  const db = openDb(dir);
  open.push(db);
  migrate(db, 'core', coreMigrations);
  const config = (await openBaseConfig({ dataDir: dir, initialPassword: 'x-password-1' })).store;
  const wol = new RuleStore(db, 'wol', wolContract.rule, createProgramLog({ level: 2, capacity: 10 }).logger);
  return { db, config, wol };
}

const device = (name: string) => ({ name, macs: ['00:11:22:33:44:55'] });

describe('rule owners in backups', () => {
  it('are written with each rule and restored with it, with or without secrets', async () => {
    const a = await install();
    const mine = a.wol.create(device('mine'));
    const owned = a.wol.create(device('ha'), HA);
    for (const secrets of [true, false]) {
      const file = JSON.parse(backupText(createBackup({ db: a.db, config: a.config, modules: MODULES, version: 'test', secrets }))) as {
        modules: { wol: { rules: Array<{ key: string; owner: unknown }> } };
      };
      expect(file.modules.wol.rules.map((r) => [r.key, r.owner])).toEqual([[mine, null], [owned, HA]]);

      const b = await install();
      b.wol.create(device('other'));
      const p = prepareRestore(file, { db: b.db, config: b.config, modules: MODULES });
      expect(p.summary.modules.wol).toMatchObject({ add: 2, update: 0, remove: 1 });
      applyRestore(p, { db: b.db, config: b.config });
      expect(b.wol.list().map((r) => [r.key, r.data.name, r.owner])).toEqual([[mine, 'mine', null], [owned, 'ha', HA]]);
      expect(b.wol.owned('publish', 'svc1').map((r) => r.key)).toEqual([owned]);
    }
  });

  it('a file of an earlier version, without owners, restores its rules as the user\'s own', async () => {
    const a = await install();
    const key = a.wol.create(device('ha'), HA);
    const file = createBackup({ db: a.db, config: a.config, modules: MODULES, version: 'test', secrets: true });
    const older = { ...file, modules: { wol: { ...file.modules.wol!, rules: file.modules.wol!.rules.map(({ owner: _o, ...r }) => r) } } };
    expect(JSON.stringify(older)).not.toContain('owner');
    // Over the same install: the only change is the owner, counted as an update.
    const p = prepareRestore(JSON.parse(JSON.stringify(older)), { db: a.db, config: a.config, modules: MODULES });
    expect(p.summary.modules.wol).toMatchObject({ add: 0, update: 1, remove: 0 });
    applyRestore(p, { db: a.db, config: a.config });
    expect(a.wol.get(key)).toMatchObject({ data: { name: 'ha' }, owner: null });
    expect(a.wol.owned('publish', 'svc1')).toEqual([]);
  });

  it('refuses an owner that is not one, naming it, and changes nothing', async () => {
    const a = await install();
    const key = a.wol.create(device('ha'), HA);
    const file = createBackup({ db: a.db, config: a.config, modules: MODULES, version: 'test', secrets: true });
    const bad = { ...file, modules: { wol: { ...file.modules.wol!, rules: [{ ...file.modules.wol!.rules[0]!, owner: { module: 'publish', key: 'svc1' } }] } } };
    expect(() => prepareRestore(bad, { db: a.db, config: a.config, modules: MODULES })).toThrow(/modules\.wol\.rules\.0\.owner\.name/);
    expect(a.wol.get(key)!.owner).toEqual(HA);
  });
});
