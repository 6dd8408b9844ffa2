/**
 * What a client reads it can write back: for every module of the table, a rule's view (GET) sent
 * back as it is (PUT) is taken and changes nothing saved — secrets behind their masks, hashed
 * passwords, the view's own fields (key, status, times, figures) all included. Scripts and the
 * Wanji admin edit rules so.
 */
import { rmSync } from 'node:fs';
import { MODULE_CONTRACTS, type ModuleKey } from '@lucky/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCert, type TestCert } from '../test/certs.js';
import { startTestDaemon, type TestDaemon } from '../test/harness.js';
import { makeStorage, tempDir } from '../test/storages.js';
import { MODULE_TABLE } from './index.js';

interface Fixtures {
  cert: TestCert;
  storage: string;
}

/** One rule of each module, with its secrets set; switched off where running would reach outside the test. */
const SAMPLES: Record<ModuleKey, (f: Fixtures) => Record<string, unknown>> = {
  wol: () => ({ name: 'pc', macs: ['02:00:00:aa:bb:cc'], broadcast: '127.0.0.1', secureOn: '01:02:03:04:05:06', enable: false }),
  ddns: () => ({ name: 'home', enable: false, provider: 'dnspod', credentials: { id: 'AKIDvisible', secret: 'ddns-secret-1' }, domains: ['home.example.com'] }),
  portforward: () => ({ name: 'fw', enable: false, types: ['tcp4'], listenHost: '127.0.0.1', listenPorts: '18080', targets: ['127.0.0.1'], targetPorts: '9' }),
  web: (f) => ({
    name: 'site',
    enable: false,
    protocol: 'https',
    address: '127.0.0.1',
    port: 18443,
    certs: [{ source: 'pem', cert: f.cert.cert, key: f.cert.key }],
    basicAuth: { enable: true, users: [{ user: 'u', password: 'secret-pass-1' }] },
    defaultService: { type: 'text', status: 200, contentType: 'text/plain', body: 'hello\n' },
  }),
  stun: () => ({ name: 'stun', enable: false, mode: 'forward', targetHost: '127.0.0.1', targetPort: 9 }),
  // A pasted certificate, running: its private key is what the view's `key` hid.
  acme: (f) => ({ name: 'pasted', source: 'pem', cert: f.cert.cert, privateKey: f.cert.key }),
  storage: () => ({ name: 'files', enable: false, path: tempDir('views') }),
  webdav: (f) => ({ name: 'dav', enable: false, port: 18081, mounts: [{ name: '', storage: f.storage }] }),
  ftpserver: (f) => ({ name: 'ftp', enable: false, port: 18021, mounts: [{ name: '', storage: f.storage }] }),
  sftpserver: (f) => ({ name: 'sftp', enable: false, port: 18022, mounts: [{ name: '', storage: f.storage }] }),
  filebrowser: (f) => ({ name: 'share', storage: f.storage, path: '/', password: 'share-pass-1' }),
  cron: () => ({
    name: 'nightly',
    enable: false,
    schedule: { kind: 'cron', expr: '0 0 0 1 1 *', every: 3600 },
    timezone: 'UTC',
    actions: [{ type: 'command', line: 'echo hi', onFailure: 'stop' }],
  }),
  wanji: () => ({ name: 'nas', enable: false, url: 'http://127.0.0.1:1/', token: `lk_${'a'.repeat(43)}` }),
  // Switched off: a published service that runs makes its parts in other modules.
  publish: () => ({ name: 'pub', enable: false, target: 'http://127.0.0.1:9', names: ['pub.example.com'], dnsTask: 'sometask' }),
  portal: () => ({ name: 'dora', password: 'explorer', totp: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', rules: ['somerule'] }),
};

describe('a rule view sent back with PUT', () => {
  let d: TestDaemon;
  let dir: string;
  let fixtures: Fixtures;

  beforeAll(async () => {
    d = await startTestDaemon();
    dir = tempDir('views-certs');
    fixtures = { cert: makeCert(dir, 'site', ['site.example.test']), storage: await makeStorage(d, { name: 'shared' }) };
  });
  afterAll(async () => {
    await d?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const saved = (module: string, key: string) =>
    d.runtime.db.prepare<[string, string], { data: string }>('SELECT data FROM rules WHERE module = ? AND key = ?').get(module, key)?.data;

  it('has a sample for every module with rules', () => {
    const withRules = MODULE_TABLE.map((m) => m.key).filter((k) => MODULE_CONTRACTS[k]);
    expect(Object.keys(SAMPLES).sort()).toEqual([...withRules].sort());
  });

  it.each(MODULE_TABLE.map((m) => [m.key] as const))('%s: is taken and changes nothing saved', async (module) => {
    const created = await d.call<{ key: string }>('POST', `/api/${module}/rules`, SAMPLES[module](fixtures));
    expect(created.ret, created.msg).toBe(0);
    const url = `/api/${module}/rules/${created.key}`;
    const before = (await d.call<{ rule: Record<string, unknown> }>('GET', url)).rule;
    expect(before.key).toBe(created.key);
    const stored = saved(module, created.key);

    const put = await d.call('PUT', url, before);
    expect(put.ret, put.msg).toBe(0);
    expect(saved(module, created.key)).toBe(stored);
    const after = (await d.call<{ rule: Record<string, unknown> }>('GET', url)).rule;
    // The rule's own fields read the same; figures (a storage's free space) may move between reads.
    const fields = [...Object.keys(MODULE_CONTRACTS[module]!.rule.shape), 'key', 'created'];
    const still = (v: Record<string, unknown>) => ({ ...Object.fromEntries(fields.map((k) => [k, v[k]])), state: (v.status as { state: string }).state });
    expect(still(after)).toEqual(still(before));
  });
});
