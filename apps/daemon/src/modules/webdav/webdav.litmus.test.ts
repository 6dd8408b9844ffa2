/**
 * litmus (Debian `litmus`), the WebDAV conformance suites, against our server: basic, copymove,
 * props, locks and http, each run on its own; every suite's pass count is printed and any failure
 * fails the test. A real daemon: the storage module's users and path check, the rule's listener.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRemote, type TestRemote } from '../../test/remotes.js';
import { makeStorage, setStorageUsers, tempDir } from '../../test/storages.js';
import { makeDav, startTestDaemon, type TestDaemon } from './testing/daemon.js';

const SUITES = ['basic', 'copymove', 'props', 'locks', 'http'] as const;

function litmus(suite: string, url: string, cwd: string): Promise<{ out: string; code: number }> {
  return new Promise((resolve) => {
    execFile('litmus', [url, 'alice', 'secret'], { cwd, env: { ...process.env, TESTS: suite }, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ out: stdout + stderr, code: err ? ((err as { code?: number }).code ?? 1) : 0 });
    });
  });
}

describe('litmus', () => {
  let d: TestDaemon;
  let root: string;
  let url: string;
  beforeAll(async () => {
    d = await startTestDaemon();
    root = tempDir('litmus');
    const s = await makeStorage(d, { name: 'litmus', path: root });
    await setStorageUsers(d, [{ account: 'alice', password: 'secret', permissions: { [s]: { read: true, write: true, delete: true } } }]);
    ({ url } = await makeDav(d, { mounts: [{ name: '', storage: s }] }));
  });
  afterAll(async () => {
    await d.close();
    rmSync(root, { recursive: true, force: true });
  });

  it.each(SUITES)('passes the %s suite', async (suite) => {
    const cwd = mkdtempSync(join(tmpdir(), 'lucky-litmus-log-'));
    const { out, code } = await litmus(suite, url, cwd);
    const summary = /<- summary for `[^']+': of (\d+) tests run: (\d+) passed, (\d+) failed/.exec(out);
    console.log(`litmus ${suite}: ${summary ? `${summary[2]}/${summary[1]} passed, ${summary[3]} failed` : 'no summary'}`);
    for (const w of out.split('\n').filter((l) => l.includes('WARNING'))) console.log(`litmus ${suite} ${w.trim()}`);
    if (code !== 0 || !summary || summary[3] !== '0') console.log(out);
    rmSync(cwd, { recursive: true, force: true });
    expect(summary?.[3]).toBe('0');
    expect(code).toBe(0);
  }, 150_000);
});

/**
 * The same suites through our WebDAV on top of a remote storage of each kind (a remote WebDAV server:
 * rclone serve webdav; an S3 bucket: s3rver; an SFTP server: OpenSSH's sshd): what litmus checks of
 * our server holds whatever the storage is made of.
 */
describe.each(['webdav', 's3', 'sftp'] as const)('litmus over a remote %s storage', (kind) => {
  let d: TestDaemon;
  let url: string;
  let remote: TestRemote;
  beforeAll(async () => {
    d = await startTestDaemon();
    remote = await makeRemote(d, kind);
    await setStorageUsers(d, [{ account: 'alice', password: 'secret', permissions: { [remote.key]: { read: true, write: true, delete: true } } }]);
    ({ url } = await makeDav(d, { mounts: [{ name: '', storage: remote.key }] }));
  }, 30_000);
  afterAll(async () => {
    remote?.kill();
    await d?.close();
  });

  it.each(SUITES)('passes the %s suite', async (suite) => {
    const cwd = mkdtempSync(join(tmpdir(), 'lucky-litmus-log-'));
    const { out, code } = await litmus(suite, url, cwd);
    const summary = /<- summary for `[^']+': of (\d+) tests run: (\d+) passed, (\d+) failed/.exec(out);
    console.log(`litmus ${suite} (remote ${kind}): ${summary ? `${summary[2]}/${summary[1]} passed, ${summary[3]} failed` : 'no summary'}`);
    if (code !== 0 || !summary || summary[3] !== '0') console.log(out);
    rmSync(cwd, { recursive: true, force: true });
    expect(summary?.[3]).toBe('0');
    expect(code).toBe(0);
  }, 150_000);
});
