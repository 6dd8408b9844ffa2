import { MODULE_CONTRACTS, secretPaths } from '@lucky/contracts';
/** Backups, restores, update archives, uploads and the service call, through the real app. */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../test/harness.js';
import { systemdAvailable } from './service.js';
import { readTar, TarReader, writeTar, type TarEntry } from './tar.js';
import { MAX_UNPACKED, RELEASE_DIRS, RELEASE_MANIFEST } from './update.js';

const EN = { 'lucky-lang': 'en_US' };

function multipart(name: string, data: Buffer | string) {
  const boundary = '----lucky' + Math.random().toString(16).slice(2);
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    Buffer.isBuffer(data) ? data : Buffer.from(data),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

async function upload(d: TestDaemon, url: string, name: string, data: Buffer | string) {
  const m = multipart(name, data);
  const res = await d.runtime.app.inject({ method: 'POST', url, payload: m.payload, headers: { ...m.headers, 'lucky-admin-token': d.token, ...EN } });
  expect(res.statusCode).toBe(200);
  return res.json() as { ret: number; msg?: string; [k: string]: unknown };
}

async function download(d: TestDaemon, secrets: boolean) {
  const res = await d.runtime.app.inject({ method: 'GET', url: `/api/configure?secrets=${secrets ? 1 : 0}`, headers: { 'lucky-admin-token': d.token } });
  expect(res.headers['content-disposition']).toMatch(/attachment; filename="lucky-backup-\d+\.json"/);
  return res.json() as { base: Record<string, unknown>; modules: Record<string, { rules: { key: string; data: Record<string, unknown> }[]; settings: unknown }> };
}

describe('configuration backup and restore', () => {
  let a: TestDaemon;
  let b: TestDaemon;
  beforeAll(async () => {
    a = await startTestDaemon();
    b = await startTestDaemon();
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('round-trips base settings and every module into a wiped install', async () => {
    for (const name of ['NAS', 'Desktop', 'Printer']) {
      expect((await a.call('POST', '/api/wol/rules', { name, macs: ['00:11:22:33:44:55'], repeat: 2, secureOn: '01:02:03:04:05:06' })).ret).toBe(0);
    }
    expect((await a.call('PUT', '/api/wol/configure', { defaultRepeat: 5 })).ret).toBe(0);
    const ddnsTask = {
      name: 'home',
      enable: false,
      provider: 'dnspod',
      credentials: { id: 'AKIDvisible', secret: 'ddns-secret-1' },
      domains: ['home.example.com'],
    };
    expect((await a.call('POST', '/api/ddns/rules', ddnsTask)).ret).toBe(0);
    expect((await a.call('PUT', '/api/baseconfigure', { LogLevel: 5, FrontendDisableAutoExpandLeftMenu: true, LogMaxSize: 777 })).ret).toBe(0);
    const backup = await download(a, true);
    expect(backup.base.AdminPasswordHash).toMatch(/^scrypt/);

    // b is a fresh install with its own, different data.
    expect((await b.call('POST', '/api/wol/rules', { name: 'Other', macs: ['aa:aa:aa:aa:aa:aa'] })).ret).toBe(0);
    const staged = await upload(b, '/api/configure', 'backup.json', JSON.stringify(backup));
    expect(staged.msg ?? '').toBe('');
    expect(staged.ret).toBe(0);
    const summary = staged.summary as { base: string[]; modules: Record<string, { add: number; remove: number; settings: boolean }> };
    expect(summary.base).toEqual(expect.arrayContaining(['LogLevel', 'LogMaxSize', 'FrontendDisableAutoExpandLeftMenu', 'AdminPasswordHash']));
    expect(summary.base).not.toContain('AdminWebListenPort');
    expect(summary.modules.wol).toMatchObject({ add: 3, remove: 1, settings: true });
    expect(summary.modules.ddns).toMatchObject({ add: 1, remove: 0 });
    // Nothing changes before the confirmation.
    expect((await b.call<{ list: unknown[] }>('GET', '/api/wol/rules')).list).toHaveLength(1);

    const done = await b.call('GET', `/api/restoreconfigureconfirm?key=${staged.key as string}`, undefined, { headers: EN });
    expect(done).toEqual({ ret: 0, msg: 'Configuration restored' });
    expect((await b.call('GET', `/api/restoreconfigureconfirm?key=${staged.key as string}`)).ret).toBe(3);

    const after = await download(b, true);
    expect(after.modules).toEqual(backup.modules);
    const { AdminWebListenPort: _p, ...baseA } = backup.base;
    const { AdminWebListenPort: _q, ...baseB } = after.base;
    expect(baseB).toEqual(baseA);
    // Restored rules run at once.
    const list = await b.call<{ list: { name: string; status: { state: string } }[] }>('GET', '/api/wol/rules');
    expect(list.list.map((r) => `${r.name}:${r.status.state}`)).toEqual(['NAS:running', 'Desktop:running', 'Printer:running']);
  });

  it('masks secrets unless asked, and a masked backup keeps the secrets it is restored over', async () => {
    const masked = await download(a, false);
    expect(masked.base).not.toHaveProperty('AdminPasswordHash');
    expect(masked.base).not.toHaveProperty('TwoFASecret');
    expect(JSON.stringify(masked)).not.toContain('ddns-secret-1');
    expect(masked.modules.ddns!.rules[0]!.data).toMatchObject({ credentials: { id: 'AKIDvisible', secret: '******' } });
    expect(JSON.stringify(await download(a, true))).toContain('ddns-secret-1');
    const staged = await upload(a, '/api/configure', 'masked.json', JSON.stringify(masked));
    expect(staged.ret).toBe(0);
    expect((staged.summary as { base: string[] }).base).toEqual([]);
    const hashBefore = a.runtime.config.get().AdminPasswordHash;
    expect((await a.call('GET', `/api/restoreconfigureconfirm?key=${staged.key as string}`)).ret).toBe(0);
    expect(a.runtime.config.get().AdminPasswordHash).toBe(hashBefore);
    expect(JSON.stringify(await download(a, true))).toContain('ddns-secret-1');
    // Into an install that never had the secret, a masked one cannot be restored: refused, named.
    const c = await startTestDaemon();
    try {
      const r = await upload(c, '/api/configure', 'masked.json', JSON.stringify(masked));
      expect(r.ret).toBe(1);
      expect(r.msg).toMatch(/modules\.ddns\.rules\[0\]\.credentials\.secret/);
    } finally {
      await c.close();
    }
  });

  it('restores nothing when the snapshot before it cannot be taken', async () => {
    const c = await startTestDaemon();
    try {
      expect((await c.call('POST', '/api/wol/rules', { name: 'Kept', macs: ['00:11:22:33:44:55'] })).ret).toBe(0);
      const staged = await upload(c, '/api/configure', 'backup.json', JSON.stringify(await download(a, true)));
      expect(staged.ret).toBe(0);
      // A file where the snapshot folder should be: the copy fails, whoever runs the test.
      rmSync(join(c.dataDir, 'snapshots'), { recursive: true, force: true });
      writeFileSync(join(c.dataDir, 'snapshots'), 'in the way');
      const r = await c.call('GET', `/api/restoreconfigureconfirm?key=${staged.key as string}`, undefined, { headers: EN });
      expect(r.ret).toBe(6);
      expect(r.msg).toMatch(/^Could not take a database snapshot, nothing restored: /);
      expect((await c.call<{ list: { name: string }[] }>('GET', '/api/wol/rules')).list.map((x) => x.name)).toEqual(['Kept']);
    } finally {
      await c.close();
    }
  });

  it('refuses bad or foreign files and changes nothing', async () => {
    const good = await download(a, true);
    const before = await download(b, true);
    const cases: [string, string | Buffer, RegExp][] = [
      ['not json', 'hello', /not JSON/],
      ['foreign json', JSON.stringify({ some: 'thing' }), /format/],
      ['wrong version', JSON.stringify({ ...good, version: 2 }), /version/],
      ['bad rule', JSON.stringify({ ...good, modules: { wol: { rules: [{ key: 'k1', data: { name: 'x', macs: ['zz'] }, created: 1, updated: 1 }], settings: null } } }), /modules\.wol\.rules\[0\]\.macs/],
      ['unknown module', JSON.stringify({ ...good, modules: { teleport: { rules: [], settings: null } } }), /no module "teleport"/],
      ['bad base', JSON.stringify({ ...good, base: { ...good.base, LogLevel: 99 } }), /base\.LogLevel/],
      ['binary', Buffer.from([0x1f, 0x8b, 0, 1, 2]), /not JSON/],
    ];
    for (const [what, data, re] of cases) {
      const r = await upload(b, '/api/configure', 'x.json', data);
      expect(r.ret, what).toBe(1);
      expect(r.msg, what).toMatch(/^Invalid backup file: /);
      expect(r.msg, what).toMatch(re);
    }
    expect((await b.call('GET', '/api/restoreconfigureconfirm?key=deadbeef')).ret).toBe(3);
    const after = await download(b, true);
    expect(after.base).toEqual(before.base);
    expect(after.modules).toEqual(before.modules);
  });
});

describe('secrets in backups', () => {
  it('are what the contracts declare, module by module', () => {
    const declared = Object.fromEntries(
      Object.entries(MODULE_CONTRACTS).map(([m, c]) => [m, [...secretPaths(c!.rule), ...secretPaths(c!.configure)].map((p) => p.path.map((s) => (Array.isArray(s) ? '[]' : s)).join('.'))]),
    );
    expect(declared).toEqual({
      wol: ['secureOn', 'shutdown.command', 'shutdown.url'],
      ddns: expect.arrayContaining(['credentials.secret', 'credentials.secret2', 'proxy.password', 'webhook.proxy.password']),
      web: expect.arrayContaining(['basicAuth.users.[].password', 'certs.[].key', 'subRules.[].basicAuth.users.[].password']),
      portforward: ['tls.key'],
      stun: ['webhook.proxy.password'],
      storage: ['webdav.password', 'sftp.password', 'sftp.privateKey', 's3.secretAccessKey', 'users.[].password'],
      webdav: ['certs.[].key'],
      ftpserver: ['certs.[].key'],
      sftpserver: [],
      filebrowser: ['password'],
      cron: ['actions.[].headers.[]', 'actions.[].proxy.password', 'actions.[].webhook.proxy.password'],
      acme: ['privateKey', 'eabHmac', 'accountKey', 'webhook.proxy.password', 'auto.eabHmac'],
      wanji: ['token'],
      publish: [],
      portal: ['password', 'totp'],
    });
  });
});

describe('uploads read back as base64', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startTestDaemon();
  });
  afterAll(async () => {
    await d.close();
  });

  it('multipart and raw bodies, with limits', async () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    const r = await upload(d, '/api/getfilebase64', 'cert.pem', pem);
    expect(r).toMatchObject({ ret: 0, name: 'cert.pem', size: pem.length, data: Buffer.from(pem).toString('base64') });
    const raw = await d.runtime.app.inject({
      method: 'POST',
      url: '/api/getfilebase64?name=key.pem',
      payload: Buffer.from([1, 2, 3, 250]),
      headers: { 'content-type': 'application/octet-stream', 'lucky-admin-token': d.token },
    });
    expect(raw.json()).toMatchObject({ ret: 0, name: 'key.pem', size: 4, data: 'AQID+g==' });
    const big = await upload(d, '/api/getfilebase64', 'big.bin', Buffer.alloc(5 * 1024 * 1024));
    expect(big.ret).toBe(1);
    expect(big.msg).toMatch(/too large/);
    const bigRaw = await d.runtime.app.inject({
      method: 'POST',
      url: '/api/getfilebase64?name=big.bin',
      payload: Buffer.alloc(5 * 1024 * 1024),
      headers: { 'content-type': 'application/octet-stream', 'lucky-admin-token': d.token, ...EN },
    });
    expect(bigRaw.json()).toEqual({ ret: 1, msg: 'The uploaded file is too large (at most 4 MB)' });
    const emptyRaw = await d.runtime.app.inject({
      method: 'POST',
      url: '/api/getfilebase64',
      payload: Buffer.alloc(0),
      headers: { 'content-type': 'application/octet-stream', 'lucky-admin-token': d.token },
    });
    expect(emptyRaw.json().ret).toBe(1);
    const none = await d.runtime.app.inject({ method: 'POST', url: '/api/getfilebase64', headers: { 'lucky-admin-token': d.token } });
    expect(none.json().ret).toBe(1);
  });

  it('the service call says plainly when systemd is not there', async () => {
    const r = await d.call('PUT', '/api/lucky/service?option=status', undefined, { headers: EN });
    if (systemdAvailable()) expect(r.ret).toBe(0);
    else expect(r).toEqual({ ret: 5, msg: 'This system has no systemd; cannot install a service' });
    expect((await d.call('PUT', '/api/lucky/service?option=explode')).ret).toBe(1);
  });
});

describe('updates from a release archive', () => {
  let d: TestDaemon;
  let root: string;
  let restarts = 0;
  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

  function installTree(version: string) {
    for (const dir of RELEASE_DIRS) {
      mkdirSync(join(root, dir), { recursive: true });
      writeFileSync(join(root, dir, 'index.js'), `// ${dir} ${version}\n`);
    }
    writeFileSync(join(root, 'pnpm-lock.yaml'), 'lockfileVersion: 9.0\n');
  }

  function release(version: string, tweak: (m: Record<string, unknown>, files: { path: string; data: Buffer }[]) => void = () => {}) {
    const files = RELEASE_DIRS.flatMap((dir) => [
      { path: `${dir}/index.js`, data: Buffer.from(`// ${dir} ${version}\n`) },
      { path: `${dir}/assets/extra.js`, data: Buffer.from(`export const v = '${version}';\n`) },
    ]);
    const manifest: Record<string, unknown> = {
      name: 'lucky',
      version,
      created: Date.now(),
      lockfile: sha(readFileSync(join(root, 'pnpm-lock.yaml'))),
      files: Object.fromEntries(files.map((f) => [f.path, sha(f.data)])),
    };
    tweak(manifest, files);
    return gzipSync(writeTar([{ path: RELEASE_MANIFEST, data: Buffer.from(JSON.stringify(manifest)) }, ...files]));
  }

  const snapshot = () =>
    RELEASE_DIRS.map((dir) => (existsSync(join(root, dir)) ? readdirSync(join(root, dir), { recursive: true }).sort().join(',') + readFileSync(join(root, dir, 'index.js'), 'utf8') : '-')).join('|');

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'lucky-install-'));
    installTree('1.0.0');
    d = await startTestDaemon({ installRoot: root, restart: () => restarts++ });
  });
  afterAll(async () => {
    await d.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('refuses corrupt, foreign and unsafe archives and changes nothing', async () => {
    const before = snapshot();
    const cases: [string, Buffer, RegExp][] = [
      ['not gzip', Buffer.from('plain text'), /not a gzip file/],
      ['not tar', gzipSync(Buffer.from('x'.repeat(1000))), /not a valid tar/],
      ['no manifest', gzipSync(writeTar([{ path: 'apps/daemon/dist/index.js', data: Buffer.from('x') }])), /lucky-release\.json is missing/],
      ['foreign', release('2.0.0', (m) => (m.name = 'other')), /not a Lucky release manifest/],
      ['bad checksum', release('2.0.0', (_m, f) => (f[0]!.data = Buffer.from('tampered'))), /checksum mismatch/],
      ['traversal', release('2.0.0', (m, f) => {
        f.push({ path: 'apps/daemon/dist/../../../evil.js', data: Buffer.from('x') });
        (m.files as Record<string, string>)['apps/daemon/dist/../../../evil.js'] = sha(Buffer.from('x'));
      }), /unsafe or unexpected path/],
      ['outside dirs', release('2.0.0', (m, f) => {
        f.push({ path: 'etc/passwd', data: Buffer.from('x') });
        (m.files as Record<string, string>)['etc/passwd'] = sha(Buffer.from('x'));
      }), /unsafe or unexpected path/],
      ['unlisted file', release('2.0.0', (_m, f) => f.push({ path: 'apps/daemon/dist/extra.js', data: Buffer.from('x') })), /not in the manifest/],
      ['missing file', release('2.0.0', (_m, f) => f.pop()), /file missing/],
      ['other deps', release('2.0.0', (m) => (m.lockfile = 'f'.repeat(64))), /other dependencies/],
      ['bad version', release('two', () => {}), /not a Lucky release manifest/],
    ];
    for (const [what, archive, re] of cases) {
      const r = await upload(d, '/api/update', 'lucky.tar.gz', archive);
      expect(r.ret, what).toBe(1);
      expect(r.msg, what).toMatch(re);
    }
    const truncated = release('2.0.0');
    expect((await upload(d, '/api/update', 'x.tar.gz', truncated.subarray(0, truncated.length / 2))).ret).toBe(1);
    expect((await d.call('PUT', '/api/update/comfire', {})).ret).toBe(3);
    expect(snapshot()).toBe(before);
    expect(restarts).toBe(0);
  });

  it('stages, cancels, then applies a good archive and restarts', async () => {
    const staged = await upload(d, '/api/update', 'lucky-2.0.0.tar.gz', release('2.0.0'));
    expect(staged).toMatchObject({ ret: 0, info: { version: '2.0.0', files: 6 } });
    expect((await d.call('GET', '/api/update/cancel', undefined, { headers: EN })).msg).toBe('Update discarded');
    expect((await d.call('PUT', '/api/update/comfire', {})).ret).toBe(3);
    expect(readFileSync(join(root, 'apps/daemon/dist/index.js'), 'utf8')).toContain('1.0.0');

    expect((await upload(d, '/api/update', 'lucky-2.0.0.tar.gz', release('2.0.0'))).ret).toBe(0);
    const applied = await d.call('PUT', '/api/update/comfire', {}, { headers: EN });
    expect(applied).toEqual({ ret: 0, msg: 'Update installed, restarting' });
    for (let i = 0; i < 50 && restarts === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(restarts).toBe(1);
    for (const dir of RELEASE_DIRS) {
      expect(readFileSync(join(root, dir, 'index.js'), 'utf8')).toContain('2.0.0');
      expect(readFileSync(join(root, dir, 'assets/extra.js'), 'utf8')).toContain('2.0.0');
      // The previous build stays beside it for a manual rollback.
      expect(readFileSync(join(root, `${dir}.old`, 'index.js'), 'utf8')).toContain('1.0.0');
    }
    expect(existsSync(join(d.dataDir, 'update', 'staged'))).toBe(false);
    expect(dirname(root)).toBeTruthy();
  });

  it('refuses a zip bomb as too large when unpacked, keeps what was staged, leaves nothing behind', async () => {
    expect((await upload(d, '/api/update', 'lucky-3.0.0.tar.gz', release('3.0.0'))).ret).toBe(0);
    // Gzip members of 64 MB of zeros back to back: just past the bound, in well under 1 MB.
    const member = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    const bomb = Buffer.concat(Array.from({ length: MAX_UNPACKED / (64 * 1024 * 1024) + 1 }, () => member));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const en = await upload(d, '/api/update', 'bomb.tar.gz', bomb);
    expect(en).toEqual({ ret: 1, msg: 'The update archive is too large when unpacked (more than 268 MB)' });
    const m = multipart('bomb.tar.gz', bomb);
    const zh = await d.runtime.app.inject({ method: 'POST', url: '/api/update', payload: m.payload, headers: { ...m.headers, 'lucky-admin-token': d.token } });
    expect(zh.json()).toEqual({ ret: 1, msg: '更新包解压后过大（超过 268 MB）' });
    // A bomb that is a valid tar: one listed file of zeros, written to disk until the bound stops it.
    const big = writeTar([{ path: 'apps/daemon/dist/big.js', data: Buffer.alloc(0) }]);
    big.write((MAX_UNPACKED + 1024).toString(8).padStart(11, '0') + '\0', 124, 'ascii');
    let sum = 0;
    big.fill(' ', 148, 156);
    for (const b of big.subarray(0, 512)) sum += b;
    big.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'ascii');
    const tarBomb = Buffer.concat([gzipSync(big.subarray(0, 512)), bomb]);
    expect((await upload(d, '/api/update', 'tarbomb.tar.gz', tarBomb)).msg).toMatch(/too large when unpacked/);

    expect(readdirSync(join(d.dataDir, 'update'))).toEqual(['staged']);
    expect((await d.call<{ msg: string }>('GET', '/api/update/cancel', undefined, { headers: EN })).msg).toBe('Update discarded');
    expect(readdirSync(join(d.dataDir, 'update'))).toEqual([]);
    // Three archives inflated to 268 MB each (about 4 s alone): room for a machine running two suites.
  }, 90_000);

  it('stages from a raw body as well, and answers when the archive is cut short', async () => {
    const good = release('2.1.0');
    const raw = await d.runtime.app.inject({
      method: 'POST',
      url: '/api/update',
      payload: good,
      headers: { 'content-type': 'application/octet-stream', 'lucky-admin-token': d.token },
    });
    expect(raw.json()).toMatchObject({ ret: 0, info: { version: '2.1.0', files: 6 } });
    // The staged files are the archive's, byte for byte.
    for (const dir of RELEASE_DIRS) {
      expect(readFileSync(join(d.dataDir, 'update', 'staged', dir, 'index.js'), 'utf8')).toBe(`// ${dir} 2.1.0\n`);
    }
    // One file of 10 bytes: header 0-512, content and padding 512-1024, end marker from 1024.
    const small = writeTar([{ path: 'apps/daemon/dist/a.js', data: Buffer.alloc(10, 1) }]);
    const cutAt = async (n: number) => (await upload(d, '/api/update', 'cut.tar.gz', gzipSync(small.subarray(0, n)))).msg;
    expect(await cutAt(300)).toBe('Invalid update archive: not a valid tar archive (truncated archive at byte 300)');
    expect(await cutAt(700)).toBe('Invalid update archive: not a valid tar archive (truncated archive at apps/daemon/dist/a.js)');
    expect(await cutAt(1024)).toBe('Invalid update archive: not a valid tar archive (archive ends without its end marker)');
    expect(await cutAt(1100)).toBe('Invalid update archive: not a valid tar archive (truncated archive at byte 1100)');
    const twice = await upload(d, '/api/update', 'twice.tar.gz', gzipSync(writeTar([{ path: 'apps/daemon/dist/a.js', data: Buffer.alloc(1) }, { path: 'apps/daemon/dist/a.js', data: Buffer.alloc(1) }])));
    expect(twice.msg).toMatch(/a file appears twice/);
    // What was staged before is still there.
    expect(readdirSync(join(d.dataDir, 'update'))).toEqual(['staged']);
    expect((await d.call('GET', '/api/update/cancel')).ret).toBe(0);
  });

  it('tar round trip keeps long paths and binary data', () => {
    const long = `${'a'.repeat(90)}/${'b'.repeat(60)}/file-with-a-long-name.js`;
    const entries = [
      { path: long, data: Buffer.from([0, 1, 2, 255]) },
      { path: 'x.txt', data: Buffer.alloc(1024, 7) },
    ];
    expect(readTar(writeTar(entries))).toEqual(entries);
  });

  it('the streaming tar reader reads what readTar reads, whatever the chunk boundaries', async () => {
    const entries: TarEntry[] = [
      { path: 'empty.txt', data: Buffer.alloc(0) },
      { path: 'one-block.bin', data: Buffer.alloc(512, 3) },
      { path: `${'d'.repeat(120)}/odd.bin`, data: Buffer.from(Array.from({ length: 1500 }, (_, i) => i % 251)) },
    ];
    const tar = writeTar(entries);
    for (const size of [1, 7, 511, 512, 513, 4096, tar.length]) {
      const got: TarEntry[] = [];
      const reader = new TarReader({
        maxBytes: tar.length,
        file: (path) => {
          const chunks: Buffer[] = [];
          return { write: (c) => void chunks.push(Buffer.from(c)), end: () => void got.push({ path, data: Buffer.concat(chunks) }) };
        },
      });
      const pieces = Array.from({ length: Math.ceil(tar.length / size) }, (_, i) => tar.subarray(i * size, (i + 1) * size));
      await pipeline(Readable.from(pieces), reader);
      expect(got, `chunks of ${size}`).toEqual(readTar(tar));
    }
    const tooSmall = new TarReader({ maxBytes: tar.length - 1, file: () => ({ write() {}, end() {} }) });
    await expect(pipeline(Readable.from([tar]), tooSmall)).rejects.toThrow(/more than/);
  });
});
