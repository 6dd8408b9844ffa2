/**
 * A zip bomb posted to the update route, against the built daemon as a real process: it is refused
 * as too large when unpacked, and the daemon's resident memory (read from /proc) does not grow with it.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../test/harness.js';
import { cleanUp, login, memoryOf, resetPeakMemory, run, tempDir, waitFor, type Daemon } from '../test/proc.js';
import { MAX_UNPACKED } from './update.js';

const MB = 1024 * 1024;
/**
 * The first sizeable stream a daemon handles grows it once to its working size, whatever the
 * stream's length: V8's young generation fills its pages and malloc keeps the arena the 16 kB zlib
 * buffers were freed into (measured: +32 MB after 256 MB unpacked, the same after 8.6 GB). Node 26's
 * V8 goes on growing and shrinking the young generation in steps of about 25 MB from one upload to
 * the next (measured: a peak up to +55 MB over a warm daemon, falling back after). So the bound says
 * memory does not grow with the upload (two bombs of 8.6 GB unpacked each, against +530 MB for a
 * single 256 MB archive inflated in memory), not that the heap holds its size to the megabyte.
 */
const MAX_GROWTH = 64 * MB;
/** From idle, working size included (measured: +30 to +77 MB at the peak). */
const MAX_GROWTH_FROM_IDLE = 96 * MB;

const member = gzipSync(Buffer.alloc(64 * MB));
/** A gzip of ~64 MB of zeros per member, `n` members back to back (8.7 MB: ~8.6 GB of zeros). */
const zeros = (n: number) => Buffer.concat(Array.from({ length: n }, () => member));

describe('update upload of a zip bomb', () => {
  let d: Daemon;
  let port: number;
  const dataDir = tempDir();
  let token: string;
  const bomb = zeros(Math.ceil((8.7 * MB) / member.length));

  beforeAll(async () => {
    port = await freePort();
    d = run(['--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir], { LUCKY_ADMIN_PASSWORD: 'bomb-pw-1' });
    await waitFor(d, /listening on/);
    token = (await login(port, 'bomb-pw-1')).token;
  });
  afterAll(cleanUp);

  async function post(body: BodyInit, headers: Record<string, string> = {}) {
    const res = await fetch(`http://127.0.0.1:${port}/api/update`, {
      method: 'POST',
      headers: { 'lucky-admin-token': token, 'lucky-lang': 'en_US', ...headers },
      body,
      signal: AbortSignal.timeout(60_000),
    });
    return (await res.json()) as { ret: number; msg?: string };
  }

  const asForm = (data: Buffer) => {
    const form = new FormData();
    form.append('file', new Blob([data]), 'lucky.tar.gz');
    return form;
  };

  const mb = (n: number) => `${(n / MB).toFixed(1)} MB`;

  it('is refused as too large when unpacked, and resident memory does not grow with it', async () => {
    expect(bomb.length).toBeGreaterThan(8 * MB);
    // A small archive first, so the code an upload runs is loaded before measuring.
    expect((await post(asForm(gzipSync(Buffer.alloc(4096))))).ret).toBe(1);
    const idle = memoryOf(d.proc.pid!);
    // As many zeros as the bound allows: refused as no release, after bringing the daemon to its working size.
    expect((await post(asForm(zeros(MAX_UNPACKED / (64 * MB))))).msg).toMatch(/lucky-release\.json is missing/);
    // The peak from here on: the working size's own climb (up to +60 MB on Node 26) is not the bombs'.
    resetPeakMemory(d.proc.pid!);
    const warm = memoryOf(d.proc.pid!);

    const multipart = await post(asForm(bomb));
    const raw = await post(bomb, { 'content-type': 'application/octet-stream' });
    const after = memoryOf(d.proc.pid!);
    // In the test output: the figures behind the bounds.
    console.log(
      `zip bomb of ${mb(bomb.length)}, twice: RSS ${mb(idle.rss)} idle, ${mb(warm.rss)} after ${mb(MAX_UNPACKED)} unpacked, ` +
        `${mb(after.rss)} after the bombs (peak ${mb(after.peak)})`,
    );
    for (const answer of [multipart, raw]) {
      expect(answer.ret).toBe(1);
      expect(answer.msg).toMatch(/^The update archive is too large when unpacked \(more than \d+ MB\)$/);
    }
    expect(after.rss - warm.rss).toBeLessThan(MAX_GROWTH);
    // Not only afterwards: at no moment while the bombs were read did it hold much more.
    expect(after.peak - warm.rss).toBeLessThan(MAX_GROWTH);
    expect(after.rss - idle.rss).toBeLessThan(MAX_GROWTH_FROM_IDLE);
  });

  it('leaves nothing behind in the data dir', async () => {
    const left = readdirSync(join(dataDir, 'update'));
    expect(left).toEqual([]);
  });
});
