/**
 * A remote storage of every kind keeps the daemon's memory flat while 1 GiB goes up and comes back
 * down through its client: bodies stream both ways, never held whole; equal sha256 both ways.
 * The S3 and SFTP test peers (s3rver, in JavaScript, and sshd) move 40-80 MB/s here, so where
 * `npm test` runs on two Nodes (LUCKY_TEST_SHARE=i/n) each of those two kinds passes 1 GiB in one
 * run and 384 MiB in the other, where a body held whole would still show as three times the bound.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RemoteFs } from '../../core/services/storages.js';
import { startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { makeRemote, type TestRemote } from '../../test/remotes.js';
import { storagesOf } from '../../test/storages.js';

const [share, shares] = (process.env.LUCKY_TEST_SHARE ?? '0/1').split('/').map(Number) as [number, number];
/** 1 GiB in this run, or 384 MiB (passed whole in another run). */
const gibHere = (k: number) => (k % shares === share ? 1024 : 384);

describe.each([
  { kind: 'webdav', mib: 1024 },
  { kind: 's3', mib: gibHere(0) },
  { kind: 'sftp', mib: gibHere(1) },
] as const)('a remote $kind storage with $mib MiB passing through', ({ kind, mib }) => {
  let d: TestDaemon;
  let remote: TestRemote;
  let fs: RemoteFs;

  beforeAll(async () => {
    d = await startTestDaemon();
    remote = await makeRemote(d, kind);
    fs = (await storagesOf(d)).grant({ kind: 'admin', account: 'admin' }, remote.key, { remote: true })!.remote!;
  }, 30_000);

  afterAll(async () => {
    remote?.kill();
    await d?.close();
  });

  it('keeps RSS flat up and down, with equal sha256', async () => {
    const chunk = randomBytes(1 << 20);
    const n = mib;
    let sent = 0;
    const up = createHash('sha256');
    const body = new Readable({
      read() {
        if (sent === n) return this.push(null);
        sent++;
        up.update(chunk);
        this.push(chunk);
      },
    });
    const base = process.memoryUsage().rss;
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    try {
      await fs.write('/gig.bin', body, n << 20);
      const down = createHash('sha256');
      let got = 0;
      for await (const c of await fs.read('/gig.bin')) {
        down.update(c as Buffer);
        got += (c as Buffer).length;
      }
      expect(got).toBe(n << 20);
      expect(down.digest('hex')).toBe(up.digest('hex'));
    } finally {
      clearInterval(sampler);
    }
    const grew = (peak - base) / 1048576;
    console.log(`${mib} MiB up and down through the remote ${kind} storage: RSS grew ${grew.toFixed(1)} MiB at the most`);
    expect(grew).toBeLessThan(128);
    await fs.remove('/gig.bin');
  }, 120_000);
});
