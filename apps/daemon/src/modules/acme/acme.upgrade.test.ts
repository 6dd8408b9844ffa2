/**
 * A pasted certificate's private key was the rule's `key`, which the rule view hid under the rule's
 * id; it is `privateKey` now. Rules saved before (in lucky.db, in a backup) are read under the new
 * name: the database by a migration of the module, a backup file when it is restored.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SECRET_MASK } from '@lucky/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../core/db.js';
import { makeCert, type TestCert } from '../../test/certs.js';
import { startTestDaemon, type TestDaemon } from '../../test/harness.js';

interface View {
  key: string;
  name: string;
  privateKey?: string;
  status: { state: string; message: string };
  certificate: { names: string[] } | null;
}
type Backup = { modules: Record<string, { rules: Array<{ key: string; data: Record<string, unknown> }> }> };

function rowOf(d: TestDaemon, name: string): { key: string; data: Record<string, unknown> } {
  const rows = d.runtime.db.prepare<[], { key: string; data: string }>("SELECT key, data FROM rules WHERE module = 'acme'").all();
  const row = rows.map((r) => ({ key: r.key, data: JSON.parse(r.data) as Record<string, unknown> })).find((r) => r.data.name === name);
  if (!row) throw new Error(`no acme rule ${name}`);
  return row;
}

/** Renamed back as a backup written before the rename carries it. */
function asOld(data: Record<string, unknown>): Record<string, unknown> {
  const { privateKey, ...rest } = data;
  return { ...rest, key: privateKey };
}

async function restore(d: TestDaemon, backup: Backup): Promise<{ ret: number; msg?: string }> {
  const boundary = 'lucky-upgrade-test';
  const payload = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="old.json"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(backup)}\r\n--${boundary}--\r\n`;
  const res = await d.runtime.app.inject({ method: 'POST', url: '/api/configure', payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'lucky-admin-token': d.token } });
  const staged = res.json() as { ret: number; msg?: string; key?: string };
  if (staged.ret !== 0) return staged;
  return d.call('GET', `/api/restoreconfigureconfirm?key=${staged.key!}`);
}

describe('a pasted private key saved as `key`', () => {
  let dataDir: string;
  let certDir: string;
  let d: TestDaemon;
  let a: TestCert;
  let b: TestCert;

  const views = async () => (await d.call<{ list: View[] }>('GET', '/api/acme/rules')).list;
  const download = async (secrets: boolean) => JSON.parse((await d.runtime.app.inject({ method: 'GET', url: `/api/configure?secrets=${secrets ? 1 : 0}`, headers: { 'lucky-admin-token': d.token } })).body) as Backup;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'lucky-acme-upgrade-'));
    certDir = mkdtempSync(join(tmpdir(), 'lucky-acme-upgrade-certs-'));
    a = makeCert(certDir, 'a', ['a.example.test']);
    b = makeCert(certDir, 'b', ['b.example.test']);
    // A daemon of the release before: the rule row as it wrote it, and its migrations up to 1.
    const first = await startTestDaemon({ dataDir });
    await first.close();
    const db = openDb(dataDir);
    db.prepare("DELETE FROM schema_migrations WHERE namespace = 'acme' AND version > 1").run();
    const data = { name: 'old-pem', enable: true, source: 'pem', cert: a.cert, key: a.key };
    db.prepare("INSERT INTO rules (module, key, position, data, created_at, updated_at) VALUES ('acme', 'oldrule1', 1, ?, 1, 1)").run(JSON.stringify(data));
    db.close();
    d = await startTestDaemon({ dataDir });
  }, 60_000);
  afterAll(async () => {
    await d?.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(certDir, { recursive: true, force: true });
  });

  it('is moved to privateKey by the migration: the rule reads, runs, and its view keeps its id apart from its key', async () => {
    const row = rowOf(d, 'old-pem');
    expect(row.key).toBe('oldrule1');
    expect(row.data.privateKey).toBe(a.key);
    expect(row.data).not.toHaveProperty('key');
    const view = (await views()).find((v) => v.name === 'old-pem')!;
    expect(view).toMatchObject({ key: 'oldrule1', privateKey: SECRET_MASK, status: { state: 'running' }, certificate: { names: ['a.example.test'] } });
    const stored = d.runtime.db.prepare<[string], { key: string }>('SELECT key FROM certificates WHERE name = ?').get('old-pem');
    expect(stored?.key).toBe(a.key);
  });

  it('in a backup with secrets: restored under the new name', async () => {
    const backup = await download(true);
    const rules = backup.modules.acme!.rules;
    // The backup says `b` under the old name; the restore must put b's key in place, not keep a's.
    rules[0]!.data = asOld({ ...rules[0]!.data, cert: b.cert, privateKey: b.key });
    expect(rules[0]!.data).toHaveProperty('key', b.key);
    const done = await restore(d, backup);
    expect(done.ret, done.msg).toBe(0);
    expect(rowOf(d, 'old-pem').data).toMatchObject({ cert: b.cert, privateKey: b.key });
    expect(rowOf(d, 'old-pem').data).not.toHaveProperty('key');
    expect((await views()).find((v) => v.name === 'old-pem')).toMatchObject({ key: 'oldrule1', certificate: { names: ['b.example.test'] } });
  });

  it('in a backup without secrets: the mask under the old name keeps the saved key', async () => {
    const backup = await download(false);
    const rules = backup.modules.acme!.rules;
    expect(rules[0]!.data.privateKey).toBe(SECRET_MASK);
    rules[0]!.data = asOld(rules[0]!.data);
    const done = await restore(d, backup);
    expect(done.ret, done.msg).toBe(0);
    expect(rowOf(d, 'old-pem').data).toMatchObject({ cert: b.cert, privateKey: b.key });
  });
});
