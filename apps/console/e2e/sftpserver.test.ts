// @vitest-environment node
/**
 * The SFTP server in a real browser against the built daemon. Everything stays on this machine: the
 * storage is a temporary directory, the key pair is made by ssh-keygen for the test, the server
 * listens on a free loopback port. Covered: a storage user given an OpenSSH public key in the
 * storage page's user editor (a bad line named as it is typed), the menu entry and the empty list,
 * a rule added through the form (password login off), its row running, the host keys' fingerprints
 * shown equal to what the server presents (ssh-keyscan | ssh-keygen -l), the public key copied from
 * the page trusted by OpenSSH's sftp, which logs in with the user's key and reads a file, the
 * figures and the log counting it, delete. Screenshots: sftpserver-*.png.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeConsole, Daemon, enableModules, flip, freePort, openConsole, openSubmenuEntry, pickOption as pick, requirePrerequisites, shooter, shotOnFailure } from './harness';
import { makeStorage, setStorageUsers } from './storages';

const shot = shooter('sftpserver');

const USER = 'alice';

let daemon: Daemon;
let browser: Browser | undefined;
let context: BrowserContext | undefined;
let page: Page;
let apiToken = '';
let dir = '';
let port = 0;
let storage = '';
let publicKey = '';
const pageErrors: string[] = [];

async function rules(): Promise<Array<Record<string, unknown>>> {
  return (await daemon.api('GET', '/api/sftpserver/rules', undefined, apiToken)).list as Array<Record<string, unknown>>;
}
const row = (p: Page, name: string): Locator => p.locator(`[data-testid="sftp-row"][data-name="${name}"]`);

/** A command's standard output, or its failure with what it said. */
function run(cmd: string, args: string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(cmd, args, { timeout: 10_000, killSignal: 'SIGKILL' }, (err, out, errOut) => (err ? reject(new Error(`${cmd}: ${err.message}\n${errOut}`)) : resolve(String(out))));
    if (input !== undefined) child.stdin!.end(input);
  });
}

describe('SFTP server console e2e (chromium + built daemon, loopback listener, OpenSSH sftp with a key)', () => {
  beforeAll(async () => {
    requirePrerequisites();
    dir = mkdtempSync(join(tmpdir(), 'lucky-sftp-e2e-'));
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'alice@e2e', '-f', join(dir, 'id_ed25519')]);
    publicKey = readFileSync(join(dir, 'id_ed25519.pub'), 'utf8').trim();
    port = await freePort();
    ({ daemon, apiToken, browser, context, page } = await openConsole(1440, 1000, pageErrors));
    await context!.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: daemon.url.replace(/\/$/, '') });
    await enableModules(daemon, apiToken, ['storage', 'sftpserver']);
    const path = mkdtempSync(join(dir, 'files-'));
    writeFileSync(join(path, 'hello.txt'), 'hello sftp');
    storage = await makeStorage(daemon, apiToken, 'Files', path);
    await setStorageUsers(daemon, apiToken, [{ account: USER, password: 'sftp-Pass-1', permissions: { [storage]: { read: true } } }]);
  }, 90_000);

  afterEach(shotOnFailure('sftpserver', () => page, () => daemon));

  afterAll(async () => {
    await closeConsole({ daemon, browser, context });
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('gives the storage user a public key in its editor; a bad line is named as it is typed', async () => {
    await page.goto(`${daemon.url}#/storagemanagement`);
    const user = page.locator(`[data-testid="storage-user-row"][data-account="${USER}"]`);
    await user.getByTestId('storage-user-edit').click();
    const keys = page.getByTestId('storage-user-keys-input');
    await keys.fill(`${publicKey}\nno-pty ${publicKey}`);
    await expect.poll(() => page.getByTestId('storage-user-key-problem').textContent()).toMatch(/^第 2 行：公钥行前不能带选项/);
    await keys.fill(publicKey);
    await expect.poll(() => page.getByTestId('storage-user-keys-count').textContent()).toBe('1 个公钥');
    await expect.poll(() => page.getByTestId('storage-user-key-problem').count()).toBe(0);
    await shot(page, '01-user-key');
    await page.getByTestId('storage-user-save').click();
    await expect.poll(() => page.getByTestId('storage-user-keys-input').count()).toBe(0);
    await expect.poll(() => user.getByTestId('storage-user-keys').getAttribute('data-value')).toBe('1');
    const users = ((await daemon.api('GET', '/api/storage/configure', undefined, apiToken)).configure as { users: Array<{ account: string; publicKeys: string }> }).users;
    expect(users.find((u) => u.account === USER)?.publicKeys).toBe(publicKey);
  });

  it('adds a server with key login only on a loopback port: it runs, with the host keys the server presents', async () => {
    await openSubmenuEntry(page, daemon, 'storage', 'sftpserver');
    await expect.poll(() => page.title()).toBe('Lucky | SFTP服务');
    await page.getByTestId('sftp-empty').waitFor();
    await page.getByTestId('sftp-add').click();
    await page.getByTestId('sftp-name').fill('家庭');
    await page.getByTestId('sftp-address').fill('127.0.0.1');
    await page.getByTestId('sftp-port').fill(String(port));
    await pick(page, page.getByTestId('sftp-root-storage'), 'Files');
    await flip(page.getByTestId('sftp-password-login'), false);
    await shot(page, '02-form');
    await page.getByTestId('sftp-save').click();
    await expect.poll(() => page.getByTestId('sftp-name').count()).toBe(0);
    const r = row(page, '家庭');
    await expect.poll(() => r.getByTestId('sftp-status').getAttribute('data-state'), { timeout: 10_000 }).toBe('running');
    await expect.poll(() => r.getByTestId('sftp-row-listen').textContent()).toBe(`127.0.0.1:${port}`);
    await expect.poll(() => r.getByTestId('sftp-row-logins').textContent()).toBe('公钥');
    expect(await r.getByTestId('sftp-url').getAttribute('data-url')).toBe(`sftp://127.0.0.1:${port}/`);
    expect((await rules()).find((x) => x.name === '家庭')).toMatchObject({ port, passwordLogin: false, keyLogin: true, mounts: [{ name: '', storage }] });

    // The fingerprint on the page is the one the server shows a client.
    const ed = page.locator('[data-testid="sftp-hostkey"][data-type="ssh-ed25519"]');
    await expect.poll(() => ed.getByTestId('sftp-hostkey-fingerprint').textContent()).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    const scanned = await run('ssh-keyscan', ['-p', String(port), '-t', 'ed25519', '127.0.0.1']);
    const presented = (await run('ssh-keygen', ['-l', '-f', '-'], scanned)).split(/\s+/)[1];
    expect(await ed.getByTestId('sftp-hostkey-fingerprint').textContent()).toBe(presented);
    await shot(page, '03-list');
  });

  it('OpenSSH trusts the copied host key and logs in with the user key; the figures and the log count it', async () => {
    const ed = page.locator('[data-testid="sftp-hostkey"][data-type="ssh-ed25519"]');
    await ed.getByTestId('sftp-hostkey-copy').click();
    await expect.poll(() => ed.getByTestId('sftp-hostkey-copy').textContent()).toBe('已复制');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toMatch(/^ssh-ed25519 AAAA\S+$/);
    writeFileSync(join(dir, 'known_hosts'), `[127.0.0.1]:${port} ${copied}\n`);
    writeFileSync(join(dir, 'batch'), `get hello.txt ${join(dir, 'got.txt')}\n`);
    // -F /dev/null: the machine's ssh_config (SendEnv, identities) stays out of it.
    await run('sftp', [
      '-F', '/dev/null', '-b', join(dir, 'batch'), '-P', String(port), '-i', join(dir, 'id_ed25519'),
      '-o', 'IdentitiesOnly=yes', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=yes',
      '-o', `UserKnownHostsFile=${join(dir, 'known_hosts')}`, '-o', 'GlobalKnownHostsFile=/dev/null', '-o', 'PasswordAuthentication=no',
      `${USER}@127.0.0.1`,
    ], '');
    expect(readFileSync(join(dir, 'got.txt'), 'utf8')).toBe('hello sftp');
    const r = row(page, '家庭');
    await expect.poll(() => r.getByTestId('sftp-fig-downloads').getAttribute('data-value'), { timeout: 10_000 }).toBe('1');
    await expect.poll(() => r.getByTestId('sftp-fig-out').getAttribute('data-value')).toBe('10');
    await shot(page, '04-figures');
    await r.getByTestId('sftp-log-open').click();
    await expect.poll(() => page.getByTestId('sftp-log-text').textContent()).toMatch(/以 alice 登录/);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('sftp-log-text').count()).toBe(0);
  });

  it('deletes the server: the port is closed', async () => {
    await row(page, '家庭').getByTestId('sftp-delete').click();
    await page.getByTestId('sftp-delete-confirm').click();
    await page.getByTestId('sftp-empty').waitFor();
    expect(await rules()).toEqual([]);
    const refused = await new Promise<string>((res) => {
      const c = connect(port, '127.0.0.1', () => (c.destroy(), res('open')));
      c.on('error', (e: NodeJS.ErrnoException) => res(e.code ?? String(e)));
    });
    expect(refused).toBe('ECONNREFUSED');
  });

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
