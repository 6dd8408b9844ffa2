/**
 * The rule store's owners, on real SQLite: kept beside the rule (not in its schema), listed by owner,
 * renamed, read again after a write whoever made it; and a lucky.db written before the column existed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { coreMigrations, migrate, openDb, type Db } from './db.js';
import { createProgramLog } from './logs.js';
import { RuleStore } from './rulestore.js';

const ZNote = z.object({ name: z.string().min(1), enable: z.boolean().default(true), text: z.string().default('') });
const HA = { module: 'publish', key: 'svc1', name: 'Home Assistant' };
const NAS = { module: 'publish', key: 'svc2', name: 'NAS' };

const dirs: string[] = [];
const open: Db[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function database(migrations = coreMigrations): { db: Db; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'lucky-rulestore-'));
  dirs.push(dir);
  const db = openDb(dir);
  open.push(db);
  migrate(db, 'core', migrations);
  return { db, dir };
}

const store = (db: Db, module = 'wol') => new RuleStore(db, module, ZNote, createProgramLog({ level: 2, capacity: 10 }).logger);

describe('rule owners in the store', () => {
  it('are kept beside the rule, null for the user\'s own, and listed by owner in list order', () => {
    const { db } = database();
    const s = store(db);
    const own = s.create({ name: 'mine' });
    const a = s.create({ name: 'ha web' }, HA);
    const b = s.create({ name: 'nas web' }, NAS);
    const c = s.create({ name: 'ha second' }, HA);
    expect(s.get(own)!.owner).toBeNull();
    expect(s.get(a)).toMatchObject({ data: { name: 'ha web', enable: true, text: '' }, owner: HA });
    // Not part of the rule's data: the module's schema never sees it.
    expect(s.get(a)!.data).not.toHaveProperty('owner');
    expect(s.list().map((r) => [r.data.name, r.owner?.key ?? null])).toEqual([['mine', null], ['ha web', 'svc1'], ['nas web', 'svc2'], ['ha second', 'svc1']]);
    expect(s.owned('publish', 'svc1').map((r) => r.key)).toEqual([a, c]);
    expect(s.owned('publish', 'svc2').map((r) => r.key)).toEqual([b]);
    expect(s.owned('publish', 'nothing')).toEqual([]);
    expect(s.owned('other', 'svc1')).toEqual([]);
    // Another module's store holds none of them.
    expect(store(db, 'web').owned('publish', 'svc1')).toEqual([]);
  });

  it('survive an update of the rule, and a rename changes the name alone (times kept)', () => {
    const { db } = database();
    const s = store(db);
    const a = s.create({ name: 'ha web' }, HA);
    const b = s.create({ name: 'ha second' }, HA);
    const before = s.get(a)!;
    expect(s.update(a, { name: 'ha web 2' })).toBe(true);
    expect(s.get(a)).toMatchObject({ data: { name: 'ha web 2' }, owner: HA });
    const updated = s.get(a)!.updated;
    expect(s.setOwnerName('publish', 'svc1', 'Home Assistant (garage)')).toBe(2);
    // The decode of the unchanged rule text comes from the cache; the owner beside it is read again.
    expect(s.get(a)).toMatchObject({ owner: { ...HA, name: 'Home Assistant (garage)' }, created: before.created, updated });
    expect(s.get(b)!.owner!.name).toBe('Home Assistant (garage)');
    expect(s.setOwnerName('publish', 'nothing', 'x')).toBe(0);
    expect(() => s.setOwnerName('publish', 'svc1', 'x'.repeat(201))).toThrow();
  });

  it('refuses a malformed owner and stores nothing then', () => {
    const { db } = database();
    const s = store(db);
    expect(() => s.create({ name: 'x' }, { module: 'Publish!', key: 'svc1', name: 'x' })).toThrow();
    expect(() => s.create({ name: 'x' }, { module: 'publish', key: 'a b', name: 'x' })).toThrow();
    expect(s.list()).toEqual([]);
  });

  it('reads an owner edited into something else as none, and keeps the rule', () => {
    const { db } = database();
    const s = store(db);
    const a = s.create({ name: 'ha web' }, HA);
    for (const text of ['not json', '{"module":"publish"}', '42']) {
      db.prepare("UPDATE rules SET owner = ? WHERE module = 'wol' AND key = ?").run(text, a);
      expect(s.get(a), text).toMatchObject({ data: { name: 'ha web' }, owner: null });
      expect(s.list().map((r) => r.owner)).toEqual([null]);
      expect(s.owned('publish', 'svc1')).toEqual([]);
    }
  });

  it('comes to a lucky.db written before owners: its rules read as the user\'s own, then take owners', () => {
    const { db } = database(coreMigrations.slice(0, 4));
    db.prepare("INSERT INTO rules (module, key, position, data, created_at, updated_at) VALUES ('wol', 'oldrule1', 1, ?, 5, 6)").run(JSON.stringify({ name: 'old', enable: true, text: '' }));
    expect(migrate(db, 'core', coreMigrations)).toEqual(coreMigrations.slice(4).map((m) => m.version));
    const s = store(db);
    expect(s.get('oldrule1')).toEqual({ key: 'oldrule1', data: { name: 'old', enable: true, text: '' }, created: 5, updated: 6, owner: null });
    const a = s.create({ name: 'new' }, HA);
    expect(s.list().map((r) => [r.key, r.owner])).toEqual([['oldrule1', null], [a, HA]]);
  });
});
