/**
 * WebDAV GET over a remote storage whose bodies the native relay passes socket to socket
 * (lib/http/rawget.ts, core/filebody.ts sendPassedBody): curl against our WebDAV over a remote
 * WebDAV (rclone serve webdav) and a remote S3 (s3rver), with the relay and without it
 * (LUCKY_NATIVE_RELAY=0: streamed through Node as before). Whole files and ranges with equal
 * sha256, several answers on one keep-alive connection, the figures counting the bytes, a remote
 * killed mid-body (the client's connection cut, never a short body taken as whole, the daemon
 * serving on).
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeFileTransfers } from '../../core/relay.js';
import { makeRemote, type RemoteKind, type TestRemote } from '../../test/remotes.js';
import { setStorageUsers, tempDir } from '../../test/storages.js';
import { makeDav, ruleView, startTestDaemon, type TestDaemon } from './testing/daemon.js';

function curl(args: string[]): Promise<{ out: Buffer; code: number }> {
  return new Promise((resolve) => {
    execFile('curl', ['-sS', '--max-time', '60', '-u', 'alice:secret-pw', ...args], { timeout: 90_000, maxBuffer: 256 << 20, encoding: 'buffer' }, (e, stdout) =>
      resolve({ out: stdout, code: e ? ((e as { code?: number }).code ?? 1) : 0 }),
    );
  });
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe.each([
  { kind: 'webdav' as RemoteKind, nativeRelay: true },
  { kind: 's3' as RemoteKind, nativeRelay: true },
  { kind: 'webdav' as RemoteKind, nativeRelay: false },
])('WebDAV GET over a remote $kind storage, native relay $nativeRelay', ({ kind, nativeRelay }) => {
  let d: TestDaemon;
  let remote: TestRemote;
  let url: string;
  let key: string;
  const big = randomBytes((24 << 20) + 13);
  const mid = randomBytes(300 * 1024);
  const upload = async (name: string, data: Buffer) => {
    const file = join(tempDir('upload'), name);
    writeFileSync(file, data);
    const r = await curl(['-f', '-T', file, `${url}dir/${name}`]);
    expect(r.code).toBe(0);
  };

  beforeAll(async () => {
    d = await startTestDaemon({ env: { nativeRelay } });
    remote = await makeRemote(d, kind, { cacheSeconds: 0 });
    await setStorageUsers(d, [{ account: 'alice', password: 'secret-pw', permissions: { [remote.key]: { read: true, write: true, delete: true } } }]);
    ({ key, url } = await makeDav(d, { mounts: [{ name: '', storage: remote.key }] }));
    // Put there through our WebDAV: an S3 peer keeps objects in its own layout, not as plain files.
    expect((await curl(['-X', 'MKCOL', `${url}dir/`])).code).toBe(0);
    await upload('big.bin', big);
    await upload('mid.bin', mid);
  }, 60_000);
  afterAll(async () => {
    remote?.kill();
    await d?.close();
  });

  it('sends whole files and ranges, several on one connection, counted in the figures', async () => {
    const before = nativeFileTransfers().started;
    const outBefore = (await ruleView(d, key)).figures.bytesOut;
    // Two files and a range of the big one on one keep-alive connection (curl reuses it).
    const next = ['--next', '-sS', '-u', 'alice:secret-pw'];
    const r = await curl([`${url}dir/big.bin`, '-o', '-', ...next, `${url}dir/mid.bin`, '-o', '-', ...next, '-r', '1000-5000999', `${url}dir/big.bin`, '-o', '-']);
    expect(r.code).toBe(0);
    expect(r.out.length).toBe(big.length + mid.length + 5_000_000);
    expect(sha(r.out.subarray(0, big.length))).toBe(sha(big));
    expect(sha(r.out.subarray(big.length, big.length + mid.length))).toBe(sha(mid));
    expect(sha(r.out.subarray(big.length + mid.length))).toBe(sha(big.subarray(1000, 5_001_000)));
    // Passed by the relay only with it, the two bodies of 1 MiB or more (the 300 KiB one streamed).
    expect(nativeFileTransfers().started - before).toBe(nativeRelay ? 2 : 0);
    const v = await ruleView(d, key);
    expect(v.figures.bytesOut - outBefore).toBeGreaterThanOrEqual(r.out.length);
  });

  it('answers a name the remote does not have with 404, and a range past the end with 416', async () => {
    const r = await curl(['-o', '/dev/null', '-w', '%{http_code}', `${url}dir/none.bin`]);
    expect(r.out.toString()).toBe('404');
    const q = await curl(['-o', '/dev/null', '-w', '%{http_code}', '-r', `${big.length + 10}-`, `${url}dir/big.bin`]);
    expect(q.out.toString()).toBe('416');
  });

  it('cuts the connection when the remote goes away mid-body, and serves on', async () => {
    await upload('huge.bin', Buffer.alloc(64 << 20, 7));
    // A slow client (4 MB/s) keeps the body in flight while the remote is killed under it.
    const slow = curl(['--limit-rate', '4M', '-o', '-', `${url}dir/huge.bin`]);
    await new Promise((res) => setTimeout(res, 1000));
    remote.kill();
    const r = await slow;
    expect(r.code).not.toBe(0);
    expect(r.out.length).toBeLessThan(64 << 20);
    // The daemon answers on, and the remote's absence is this request's error.
    const again = await curl(['-o', '/dev/null', '-w', '%{http_code}', `${url}dir/mid.bin`]);
    expect(['502', '503']).toContain(again.out.toString());
    expect((await ruleView(d, key)).status?.state).toBe('running');
  }, 60_000);
});
