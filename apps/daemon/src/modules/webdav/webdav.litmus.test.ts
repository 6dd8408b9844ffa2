/**
 * litmus (Debian `litmus`), the WebDAV conformance suites, against our server: basic, copymove,
 * props, locks and http, each run on its own; every suite's pass count is printed and any failure
 * fails the test. A real daemon: the storage module's users and path check, the rule's listener.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../test/harness.js';
import { rcloneWebdav, RCLONE_PASS, RCLONE_USER } from '../../test/rclone.js';
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
 * The same suites through our WebDAV on top of a remote WebDAV storage (rclone serve webdav): what
 * litmus checks of our server holds whatever the storage is made of.
 */
describe('litmus over a remote WebDAV storage', () => {
  let d: TestDaemon;
  let root: string;
  let url: string;
  let rclone: ChildProcess;
  beforeAll(async () => {
    root = tempDir('litmus-remote');
    const port = await freePort();
    rclone = await rcloneWebdav(root, port);
    d = await startTestDaemon();
    const r = await d.call<{ key: string }>('POST', '/api/storage/rules', { name: 'remote', kind: 'webdav', webdav: { url: `http://127.0.0.1:${port}/`, username: RCLONE_USER, password: RCLONE_PASS } });
    if (r.ret !== 0) throw new Error(JSON.stringify(r));
    for (let i = 0; i < 200; i++) {
      const v = await d.call<{ rule: { status?: { state: string } } }>('GET', `/api/storage/rules/${r.key}`);
      if (v.rule.status?.state === 'running') break;
      await new Promise((res) => setTimeout(res, 25));
    }
    await setStorageUsers(d, [{ account: 'alice', password: 'secret', permissions: { [r.key]: { read: true, write: true, delete: true } } }]);
    ({ url } = await makeDav(d, { mounts: [{ name: '', storage: r.key }] }));
  }, 30_000);
  afterAll(async () => {
    rclone?.kill('SIGKILL');
    await d?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it.each(SUITES)('passes the %s suite', async (suite) => {
    const cwd = mkdtempSync(join(tmpdir(), 'lucky-litmus-log-'));
    const { out, code } = await litmus(suite, url, cwd);
    const summary = /<- summary for `[^']+': of (\d+) tests run: (\d+) passed, (\d+) failed/.exec(out);
    console.log(`litmus ${suite} (remote): ${summary ? `${summary[2]}/${summary[1]} passed, ${summary[3]} failed` : 'no summary'}`);
    if (code !== 0 || !summary || summary[3] !== '0') console.log(out);
    rmSync(cwd, { recursive: true, force: true });
    expect(summary?.[3]).toBe('0');
    expect(code).toBe(0);
  }, 150_000);
});
