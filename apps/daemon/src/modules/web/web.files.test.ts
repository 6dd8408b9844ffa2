/**
 * A web rule's file server sending bodies by sendfile (core/filebody.ts), with curl on loopback:
 * on the main thread with the native relay and without it (LUCKY_NATIVE_RELAY=0), and on serving
 * threads (streamed there: the relay belongs to the main thread). Several large files and a range
 * on one keep-alive connection byte for byte, HEAD, the figures and the access log counting the
 * bodies, a client that leaves mid-download (connection and file closed). Needs `npm run build`.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZWebRule } from '@lucky/contracts';
import { nativeFileTransfers } from '../../core/relay.js';
import { freePort } from '../../test/harness.js';
import { runEngine, waitFor, type EngineRunner } from './testing/runner.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function curl(args: string[]): Promise<{ out: string; code: number }> {
  return new Promise((resolve) => {
    execFile('curl', ['-s', ...args], { timeout: 120_000 }, (e, stdout) => resolve({ out: stdout, code: e ? ((e as { code?: number }).code ?? 1) : 0 }));
  });
}

/** Descriptors of this process open on files under `dir` (serving threads share the process). */
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

describe.each([
  { path: 'main thread, sendfile', threads: 'main' as const, nativeRelay: true, native: true },
  { path: 'main thread, LUCKY_NATIVE_RELAY=0', threads: 'main' as const, nativeRelay: false, native: false },
  { path: 'serving threads (streamed)', threads: 2, nativeRelay: true, native: false },
])('web file server bodies: $path', ({ threads, nativeRelay, native }) => {
  let run: EngineRunner;
  let dir: string;
  let port: number;
  let big: Buffer;
  let mid: Buffer;
  let origin: string;
  const w = ['-w', '%{http_code} %{num_connects} %{size_download}\\n'];

  beforeAll(async () => {
    run = runEngine(threads, { nativeRelay });
    if (threads !== 'main' && run.engine.servingThreads !== threads) throw new Error('serving threads need `npm run build` (native addon and worker)');
    dir = mkdtempSync(join(tmpdir(), 'lucky-web-files-'));
    mkdirSync(join(dir, 'www'));
    big = randomBytes(32 << 20);
    mid = randomBytes((1 << 20) + 5);
    writeFileSync(join(dir, 'www', 'big.bin'), big);
    writeFileSync(join(dir, 'www', 'mid.bin'), mid);
    writeFileSync(join(dir, 'www', 'small.txt'), 'small\n');
    writeFileSync(join(dir, 'www', 'huge.bin'), Buffer.alloc(256 << 20, 3));
    port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    await run.start('f', ZWebRule.parse({ name: 'files', address: '127.0.0.1', port, defaultService: { type: 'file', root: join(dir, 'www') } }));
  });
  afterAll(async () => {
    await run.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves large files, a range and a small one on one keep-alive connection, byte for byte', async () => {
    const before = nativeFileTransfers().started;
    const out = (n: number) => join(dir, `out${n}`);
    const r = await curl([
      ...w, '-o', out(1), `${origin}/big.bin`, '--next',
      ...w, '-o', out(2), '-r', '10-', `${origin}/mid.bin`, '--next',
      ...w, '-o', out(3), `${origin}/small.txt`, '--next',
      '-I', `${origin}/big.bin`, '--next',
      ...w, '-o', out(4), `${origin}/big.bin`,
    ]);
    expect(r.code).toBe(0);
    const lines = r.out.trim().split(/\r?\n/);
    expect(lines.slice(0, 3)).toEqual([`200 1 ${big.length}`, `206 0 ${mid.length - 10}`, '200 0 6']);
    expect(r.out).toMatch(new RegExp(`content-length: ${big.length}`, 'i'));
    expect(lines.at(-1)).toBe(`200 0 ${big.length}`);
    expect(sha(readFileSync(out(1)))).toBe(sha(big));
    expect(sha(readFileSync(out(2)))).toBe(sha(mid.subarray(10)));
    expect(readFileSync(out(3), 'utf8')).toBe('small\n');
    expect(sha(readFileSync(out(4)))).toBe(sha(big));
    expect(nativeFileTransfers().started - before).toBe(native ? 3 : 0);
    await waitFor(() => openUnder(join(dir, 'www')) === 0);
  });

  it('counts the bodies in the figures and the access log', async () => {
    await waitFor(async () => (await run.accessLog('f', 50)).total >= 5);
    const log = await run.accessLog('f', 50);
    const bigs = log.list.filter((e) => e.path === '/big.bin' && e.status === 200);
    expect(bigs.length).toBe(3);
    // A response's bytes on its connection: the head and, but for HEAD, the body.
    expect(bigs.filter((e) => e.bytes > big.length && e.bytes < big.length + 1000).length).toBe(2);
    const f = await run.figures('f');
    expect(f.bytesOut).toBeGreaterThan(2 * big.length + mid.length);
  });

  it('closes the connection and the file of a client that leaves mid-download', async () => {
    const sock = connect(port, '127.0.0.1');
    sock.on('error', () => undefined);
    await new Promise((r) => sock.once('connect', r));
    sock.write('GET /huge.bin HTTP/1.1\r\nHost: x\r\n\r\n');
    let n = 0;
    await new Promise<void>((resolve) =>
      sock.on('data', (c: Buffer) => {
        n += c.length;
        if (n > 8 << 20) resolve();
      }),
    );
    sock.destroy();
    await waitFor(async () => openUnder(join(dir, 'www')) === 0 && nativeFileTransfers().active === 0 && (await run.figures('f')).connections === 0);
  });
});
