/**
 * Real clients against a real daemon: rclone (an `:webdav:` remote on the command line, its config
 * in a temp dir) copies a tree both ways with --checksum and the trees are compared byte for byte;
 * curl uploads and downloads with Range. The rule's figures and access log see the traffic.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeStorage, setStorageUsers, tempDir } from '../../test/storages.js';
import { makeDav, ruleView, startTestDaemon, type TestDaemon } from './testing/daemon.js';

function run(cmd: string, args: string[], env: Record<string, string> = {}): Promise<{ out: string; err: string; code: number }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { env: { ...process.env, ...env }, timeout: 120_000, maxBuffer: 64 << 20, encoding: 'buffer' }, (e, stdout, stderr) =>
      resolve({ out: stdout.toString('latin1'), err: stderr.toString(), code: e ? ((e as { code?: number }).code ?? 1) : 0 }),
    );
  });
}

/** Every file of a tree by its relative path, with its SHA-256. */
function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(root, p)] = createHash('sha256').update(readFileSync(p)).digest('hex');
    }
  };
  walk(root);
  return out;
}

describe('WebDAV with real clients', () => {
  let d: TestDaemon;
  let store: string;
  let work: string;
  let url: string;
  let key: string;
  let remote: string;
  let rcloneEnv: Record<string, string>;

  beforeAll(async () => {
    d = await startTestDaemon();
    store = tempDir();
    work = tempDir('work');
    const s = await makeStorage(d, { name: 'files', path: store });
    await setStorageUsers(d, [{ account: 'alice', password: 'pa ss:wörd', permissions: { [s]: { read: true, write: true, delete: true } } }]);
    ({ key, url } = await makeDav(d, { mounts: [{ name: 'files', storage: s }], prefix: '/dav' }));
    const obscured = (await run('rclone', ['obscure', 'pa ss:wörd'])).out.trim();
    remote = `:webdav,url='${url}files/',user=alice,pass=${obscured}:`;
    rcloneEnv = { RCLONE_CONFIG: join(work, 'rclone.conf'), HOME: work };
  });
  afterAll(async () => {
    await d.close();
    for (const p of [store, work]) rmSync(p, { recursive: true, force: true });
  });

  it('rclone copies a tree up and back down with checksums, byte for byte', async () => {
    const src = join(work, 'src');
    mkdirSync(join(src, 'a', 'b c', 'ü'), { recursive: true });
    writeFileSync(join(src, 'top.txt'), 'hello\n');
    writeFileSync(join(src, 'a', 'big.bin'), randomBytes(5 << 20));
    writeFileSync(join(src, 'a', 'b c', 'space name.txt'), 'x'.repeat(1000));
    writeFileSync(join(src, 'a', 'b c', 'ü', 'ünïcode #1%.dat'), randomBytes(12345));
    writeFileSync(join(src, 'empty'), '');
    for (let i = 0; i < 40; i++) writeFileSync(join(src, 'a', `small${i}.txt`), `file ${i}\n`);
    const up = await run('rclone', ['copy', '--checksum', src, `${remote}up`], rcloneEnv);
    expect(up.err.includes('ERROR') ? up.err : '').toBe('');
    expect(up.code).toBe(0);
    expect(tree(join(store, 'up'))).toEqual(tree(src));

    const back = join(work, 'back');
    const down = await run('rclone', ['copy', '--checksum', `${remote}up`, back], rcloneEnv);
    expect(down.code).toBe(0);
    expect(tree(back)).toEqual(tree(src));
    // A second run finds nothing to do.
    const again = await run('rclone', ['copy', '--checksum', '-v', src, `${remote}up`], rcloneEnv);
    expect(again.code).toBe(0);
    expect(again.err).not.toMatch(/Copied \(new\)|Copied \(replaced/);
    console.log(`rclone: ${Object.keys(tree(src)).length} files up and down, trees equal`);
  }, 120_000);

  it('curl uploads and downloads ranges', async () => {
    const body = randomBytes(300_000);
    const file = join(work, 'curl.bin');
    writeFileSync(file, body);
    const auth = ['-u', 'alice:pa ss:wörd'];
    const put = await run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', ...auth, '-T', file, `${url}files/curl.bin`]);
    expect(put.out).toBe('201');
    expect(readFileSync(join(store, 'curl.bin')).equals(body)).toBe(true);
    const again = await run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', ...auth, '-T', file, `${url}files/curl.bin`]);
    expect(again.out).toBe('204');
    const mid = await run('curl', ['-s', '-D', join(work, 'h'), ...auth, '-r', '1000-1999', `${url}files/curl.bin`]);
    expect(Buffer.from(mid.out, 'latin1').equals(body.subarray(1000, 2000))).toBe(true);
    const headers = readFileSync(join(work, 'h'), 'utf8');
    expect(headers).toMatch(/^HTTP\/1.1 206/);
    expect(headers).toMatch(/content-range: bytes 1000-1999\/300000/i);
    const tail = await run('curl', ['-s', ...auth, '-r', '-100', `${url}files/curl.bin`]);
    expect(Buffer.from(tail.out, 'latin1').equals(body.subarray(-100))).toBe(true);
    const from = await run('curl', ['-s', ...auth, '-r', '299990-', `${url}files/curl.bin`]);
    expect(Buffer.from(from.out, 'latin1').equals(body.subarray(299990))).toBe(true);
    const beyond = await run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', ...auth, '-r', '400000-', `${url}files/curl.bin`]);
    expect(beyond.out).toBe('416');
    const noAuth = await run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', `${url}files/curl.bin`]);
    expect(noAuth.out).toBe('401');
    // Expect: 100-continue: a refused upload is answered before its body is sent.
    const bigFile = join(work, 'big.bin');
    writeFileSync(bigFile, randomBytes(8 << 20));
    const before = (await ruleView(d, key)).figures.bytesIn;
    const refused = await run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-H', 'Expect: 100-continue', '-u', 'alice:wrong', '-T', bigFile, `${url}files/big.bin`]);
    expect(refused.out).toBe('401');
    expect((await ruleView(d, key)).figures.bytesIn - before).toBeLessThan(1 << 20);
    const accepted = await run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-H', 'Expect: 100-continue', ...auth, '-T', bigFile, `${url}files/big.bin`]);
    expect(accepted.out).toBe('201');
    expect(readFileSync(join(store, 'big.bin')).equals(readFileSync(bigFile))).toBe(true);
    console.log('curl: upload 201/204, ranges 206 (middle, suffix, open end), 416 beyond the end, 401 without login, an 8 MiB upload with Expect: 100-continue refused before its body (401) and accepted (201)');
  });

  it('counts the traffic and logs each request', async () => {
    const v = await ruleView(d, key);
    expect(v.figures.requests).toBeGreaterThan(50);
    expect(v.figures.bytesIn).toBeGreaterThan(5 << 20);
    expect(v.figures.bytesOut).toBeGreaterThan(5 << 20);
    expect(v.figures.denied).toBeGreaterThanOrEqual(1);
    expect(v.url).toBe(url);
    const logs = await d.call<{ list?: Array<{ log: string }>; logs?: Array<{ log: string }> }>('GET', `/api/webdav/rules/${key}/logs`, undefined, { headers: { 'lucky-lang': 'en_US' } });
    const lines = JSON.stringify(logs);
    expect(lines).toMatch(/alice PUT \/dav\/files\/curl.bin → 201/);
  });
});
