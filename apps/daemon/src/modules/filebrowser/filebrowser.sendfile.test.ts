/**
 * File browser downloads by sendfile (core/filebody.ts) through the console's listener, with curl
 * on loopback, once with the native relay and once without (LUCKY_NATIVE_RELAY=0): the API's
 * download, a ticket's link and a share link, each several times and with a range on one keep-alive
 * connection, byte for byte; HEAD; a client that leaves mid-download (connection and file closed).
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_HEADER, type FbShareView } from '@lucky/contracts';
import { nativeFileTransfers } from '../../core/relay.js';
import { makeStorage, tempDir } from '../../test/storages.js';
import { api, q, startFb } from './testing/fb.js';

type D = Awaited<ReturnType<typeof startFb>>;

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function curl(args: string[]): Promise<{ out: string; code: number }> {
  return new Promise((resolve) => {
    execFile('curl', ['-s', ...args], { timeout: 120_000 }, (e, stdout) => resolve({ out: stdout, code: e ? ((e as { code?: number }).code ?? 1) : 0 }));
  });
}

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

async function until(what: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.each([
  { path: 'sendfile', nativeRelay: true },
  { path: 'streamed (LUCKY_NATIVE_RELAY=0)', nativeRelay: false },
])('file browser downloads: $path', ({ nativeRelay }) => {
  let d: D;
  let base: string;
  let root: string;
  let s1: string;
  let big: Buffer;
  let mid: Buffer;
  let origin: string;
  const w = ['-w', '%{http_code} %{num_connects} %{size_download}\\n'];

  beforeAll(async () => {
    d = await startFb({ env: { nativeRelay } });
    origin = `http://127.0.0.1:${d.port}`;
    base = tempDir('fb-sendfile');
    root = join(base, 'one');
    mkdirSync(join(root, 'pub'), { recursive: true });
    big = randomBytes(32 << 20);
    mid = randomBytes((1 << 20) + 3);
    writeFileSync(join(root, 'pub', 'big.bin'), big);
    writeFileSync(join(root, 'pub', 'mid.bin'), mid);
    writeFileSync(join(root, 'pub', 'small.txt'), 'small\n');
    writeFileSync(join(root, 'huge.bin'), Buffer.alloc(256 << 20, 2));
    s1 = await makeStorage(d, { name: 'one', path: root });
  });
  afterAll(async () => {
    await d.close();
    rmSync(base, { recursive: true, force: true });
  });

  it('downloads through the API several times on one keep-alive connection, with a range, byte for byte', async () => {
    const before = nativeFileTransfers().started;
    const dl = (p: string) => `${origin}/api/filebrowser/download?${q({ storage: s1, path: p })}`;
    const h = ['-H', `${TOKEN_HEADER}: ${d.token}`];
    const out = (n: number) => join(base, `api${n}`);
    const r = await curl([
      ...h, ...w, '-o', out(1), dl('/pub/big.bin'), '--next',
      ...h, ...w, '-o', out(2), '-r', `1000-${mid.length - 1}`, dl('/pub/mid.bin'), '--next',
      ...h, ...w, '-o', out(3), dl('/pub/small.txt'), '--next',
      ...h, ...w, '-o', out(4), dl('/pub/big.bin'),
    ]);
    expect(r.code).toBe(0);
    expect(r.out.trim().split('\n')).toEqual([`200 1 ${big.length}`, `206 0 ${mid.length - 1000}`, '200 0 6', `200 0 ${big.length}`]);
    expect(sha(readFileSync(out(1)))).toBe(sha(big));
    expect(sha(readFileSync(out(2)))).toBe(sha(mid.subarray(1000)));
    expect(readFileSync(out(3), 'utf8')).toBe('small\n');
    expect(sha(readFileSync(out(4)))).toBe(sha(big));
    expect(nativeFileTransfers().started - before).toBe(nativeRelay ? 3 : 0);
    await until(() => openUnder(root) === 0);
  });

  it('serves a ticket link and a share link on one connection; HEAD answers the length alone', async () => {
    const t = await api<{ url: string }>(d, 'POST', '/api/filebrowser/ticket', { storage: s1, paths: ['/pub/big.bin'] });
    const created = await api<{ key: string }>(d, 'POST', '/api/filebrowser/rules', { storage: s1, name: 'pub', path: '/pub' });
    const share = (await api<{ rule: FbShareView }>(d, 'GET', `/api/filebrowser/rules/${created.key}`)).rule;
    const out = (n: number) => join(base, `link${n}`);
    const r = await curl([
      ...w, '-o', out(1), `${origin}/${t.url}`, '--next',
      ...w, '-o', out(2), `${origin}/${share.url}/dl?${q({ path: '/mid.bin' })}`, '--next',
      ...w, '-o', out(3), `${origin}/${share.url}/dl?${q({ path: '/big.bin' })}`, '--next',
      '-I', `${origin}/${share.url}/dl?${q({ path: '/big.bin' })}`, '--next',
      ...w, '-o', out(4), `${origin}/${t.url}`,
    ]);
    expect(r.code).toBe(0);
    const lines = r.out.trim().split(/\r?\n/);
    expect(lines.slice(0, 3)).toEqual([`200 1 ${big.length}`, `200 0 ${mid.length}`, `200 0 ${big.length}`]);
    expect(r.out).toMatch(new RegExp(`content-length: ${big.length}`, 'i'));
    expect(lines.at(-1)).toBe(`200 0 ${big.length}`);
    for (const [n, want] of [[1, big], [2, mid], [3, big], [4, big]] as const) expect(sha(readFileSync(out(n)))).toBe(sha(want));
    await until(() => openUnder(root) === 0);
  });

  it('closes the connection and the file of a client that leaves mid-download', async () => {
    const t = await api<{ url: string }>(d, 'POST', '/api/filebrowser/ticket', { storage: s1, paths: ['/huge.bin'] });
    const sock = connect(d.port, '127.0.0.1');
    sock.on('error', () => undefined);
    await new Promise((r) => sock.once('connect', r));
    sock.write(`GET /${t.url} HTTP/1.1\r\nHost: x\r\n\r\n`);
    let n = 0;
    await new Promise<void>((resolve) =>
      sock.on('data', (c: Buffer) => {
        n += c.length;
        if (n > 8 << 20) resolve();
      }),
    );
    sock.destroy();
    await until(() => openUnder(root) === 0 && nativeFileTransfers().active === 0);
  });
});
