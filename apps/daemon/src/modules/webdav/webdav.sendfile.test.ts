/**
 * WebDAV GET bodies by sendfile (core/filebody.ts) with real clients on loopback, once with the
 * native relay and once without (LUCKY_NATIVE_RELAY=0): curl fetching several large files and a
 * range on one keep-alive connection, rclone copying large files down, HEAD, a client that leaves
 * mid-download (the connection and the file closed), the figures and the access log counting the
 * bytes; over HTTPS the bodies are streamed (Node's TLS has no kTLS).
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeFileTransfers } from '../../core/relay.js';
import { makeCert } from '../../test/certs.js';
import { makeStorage, setStorageUsers, tempDir } from '../../test/storages.js';
import { makeDav, ruleView, startTestDaemon, type TestDaemon } from './testing/daemon.js';

function run(cmd: string, args: string[], env: Record<string, string> = {}): Promise<{ out: Buffer; err: string; code: number }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { env: { ...process.env, ...env }, timeout: 120_000, maxBuffer: 64 << 20, encoding: 'buffer' }, (e, stdout, stderr) =>
      resolve({ out: stdout, err: stderr.toString(), code: e ? ((e as { code?: number }).code ?? 1) : 0 }),
    );
  });
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Descriptors of this process open on files under `dir`. */
function openUnder(dir: string): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`).startsWith(dir)) n++;
    } catch {
      /* closed meanwhile */
    }
  }
  return n;
}

async function until(what: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.each([
  { path: 'sendfile', nativeRelay: true },
  { path: 'streamed (LUCKY_NATIVE_RELAY=0)', nativeRelay: false },
])('WebDAV GET bodies: $path', ({ nativeRelay }) => {
  let d: TestDaemon;
  let store: string;
  let work: string;
  let url: string;
  let port: number;
  let key: string;
  let storage: string;
  let big: Buffer;
  let mid: Buffer;
  const auth = ['-u', 'alice:secret-pw'];
  const basic = `Basic ${Buffer.from('alice:secret-pw').toString('base64')}`;

  beforeAll(async () => {
    d = await startTestDaemon({ env: { nativeRelay } });
    store = tempDir();
    work = tempDir('work');
    big = randomBytes(40 << 20);
    mid = randomBytes((2 << 20) + 7);
    mkdirSync(join(store, 'dir'));
    writeFileSync(join(store, 'dir', 'big.bin'), big);
    writeFileSync(join(store, 'dir', 'mid.bin'), mid);
    writeFileSync(join(store, 'dir', 'small.txt'), 'small\n');
    writeFileSync(join(store, 'huge.bin'), Buffer.alloc(256 << 20, 1));
    storage = await makeStorage(d, { name: 'files', path: store });
    await setStorageUsers(d, [{ account: 'alice', password: 'secret-pw', permissions: { [storage]: { read: true, write: true, delete: true } } }]);
    ({ key, url, port } = await makeDav(d, { mounts: [{ name: '', storage }] }));
  });
  afterAll(async () => {
    await d.close();
    for (const p of [store, work]) rmSync(p, { recursive: true, force: true });
  });

  it('curl gets large files, a range and a small one on one keep-alive connection, byte for byte', async () => {
    const before = nativeFileTransfers().started;
    const w = ['-w', '%{http_code} %{num_connects} %{size_download}\\n', ...auth];
    const out = (n: number) => join(work, `curl${n}`);
    const r = await run('curl', [
      '-s', ...w, '-o', out(1), `${url}dir/big.bin`, '--next',
      ...w, '-o', out(2), '-r', '100-1999999', `${url}dir/mid.bin`, '--next',
      ...w, '-o', out(3), `${url}dir/small.txt`, '--next',
      ...w, '-o', out(4), `${url}dir/mid.bin`, '--next',
      ...w, '-o', out(5), `${url}dir/big.bin`,
    ]);
    expect(r.code).toBe(0);
    expect(r.out.toString().trim().split('\n')).toEqual([`200 1 ${big.length}`, '206 0 1999900', '200 0 6', `200 0 ${mid.length}`, `200 0 ${big.length}`]);
    expect(sha(readFileSync(out(1)))).toBe(sha(big));
    expect(sha(readFileSync(out(2)))).toBe(sha(mid.subarray(100, 2_000_000)));
    expect(readFileSync(out(3), 'utf8')).toBe('small\n');
    expect(sha(readFileSync(out(4)))).toBe(sha(mid));
    expect(sha(readFileSync(out(5)))).toBe(sha(big));
    // Four bodies above the small-file read; the 6-byte one is read whole and written by Node.
    expect(nativeFileTransfers().started - before).toBe(nativeRelay ? 4 : 0);
    await until(() => openUnder(store) === 0);
  });

  it('rclone copies large files down with checksums', async () => {
    const obscured = (await run('rclone', ['obscure', 'secret-pw'])).out.toString().trim();
    const env = { RCLONE_CONFIG: join(work, 'rclone.conf'), HOME: work };
    const down = join(work, 'rclone');
    const r = await run('rclone', ['copy', '--checksum', '--transfers', '2', `:webdav,url='${url}',user=alice,pass=${obscured}:dir`, down], env);
    expect(r.err.includes('ERROR') ? r.err : '').toBe('');
    expect(r.code).toBe(0);
    expect(sha(readFileSync(join(down, 'big.bin')))).toBe(sha(big));
    expect(sha(readFileSync(join(down, 'mid.bin')))).toBe(sha(mid));
    expect(readFileSync(join(down, 'small.txt'), 'utf8')).toBe('small\n');
  });

  it('answers HEAD with the length and no body, then a GET on the same connection', async () => {
    const r = await run('curl', ['-s', ...auth, '-I', `${url}dir/big.bin`, '--next', ...auth, '-o', '/dev/null', '-w', '%{http_code} %{num_connects} %{size_download}', `${url}dir/big.bin`]);
    expect(r.code).toBe(0);
    expect(r.out.toString()).toMatch(new RegExp(`content-length: ${big.length}`, 'i'));
    expect(r.out.toString()).toMatch(new RegExp(`200 0 ${big.length}$`));
  });

  it('closes the connection and the file of a client that leaves mid-download', async () => {
    const sock: Socket = connect(port, '127.0.0.1');
    sock.on('error', () => undefined);
    await new Promise((r) => sock.once('connect', r));
    sock.write(`GET /huge.bin HTTP/1.1\r\nHost: x\r\nAuthorization: ${basic}\r\n\r\n`);
    let n = 0;
    await new Promise<void>((resolve) =>
      sock.on('data', (c: Buffer) => {
        n += c.length;
        if (n > 8 << 20) resolve();
      }),
    );
    sock.destroy();
    await until(async () => openUnder(store) === 0 && nativeFileTransfers().active === 0 && (await ruleView(d, key)).figures.connections === 0);
  });

  it('counts the bodies in the figures and the access log', async () => {
    const v = await ruleView(d, key);
    // Twice big and twice mid from curl, once each from rclone.
    expect(v.figures.bytesOut).toBeGreaterThan(3 * big.length + 3 * mid.length);
    const logs = JSON.stringify(await d.call('GET', `/api/webdav/rules/${key}/logs`, undefined, { headers: { 'lucky-lang': 'en_US' } }));
    expect(logs).toContain(`alice GET /dir/big.bin → 200, ${big.length} B`);
  });

  it('streams the bodies of an HTTPS rule (no kTLS in Node): same bytes, nothing on the relay', async () => {
    const cert = makeCert(work, 'dav', ['dav.test']);
    const tls = await makeDav(d, { tls: true, certs: [{ cert: cert.cert, key: cert.key }], mounts: [{ name: '', storage }] });
    const before = nativeFileTransfers().started;
    const r = await run('curl', ['-sk', ...auth, '-o', join(work, 'tls1'), `${tls.url}dir/big.bin`, '--next', '-k', ...auth, '-o', join(work, 'tls2'), '-w', '%{num_connects}', `${tls.url}dir/mid.bin`]);
    expect(r.code).toBe(0);
    expect(r.out.toString()).toBe('0');
    expect(sha(readFileSync(join(work, 'tls1')))).toBe(sha(big));
    expect(sha(readFileSync(join(work, 'tls2')))).toBe(sha(mid));
    expect(nativeFileTransfers().started).toBe(before);
  });
});
