/**
 * No path out of a storage, and no more than each user may do: `../`, `..%2f`, absolute paths of
 * the system, backslashes and symlinks that leave the root are refused for every command that
 * takes a path; a read-only user cannot write; anonymous is off unless both the rule and storage
 * management allow it, and read-only then; PORT to another host (FTP bounce) is refused; the
 * password never reaches the rule's log.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeStorage, setStorageUsers, tempDir } from '../../test/storages.js';
import { lftp, makeFtp, run, startTestDaemon, type TestDaemon } from './testing/daemon.js';

/** A raw control connection: send a line, read the reply (multi-line replies whole). */
class Control {
  private buf = '';
  private waiters: Array<() => void> = [];
  constructor(private s: Socket) {
    s.setEncoding('utf8');
    s.on('data', (c: string) => {
      this.buf += c;
      for (const w of this.waiters.splice(0)) w();
    });
  }
  static async open(port: number): Promise<Control> {
    const s = connect(port, '127.0.0.1');
    await new Promise((r) => s.once('connect', r));
    const c = new Control(s);
    await c.read();
    return c;
  }
  async read(): Promise<string> {
    for (;;) {
      const m = /^(\d{3})(?: [^\n]*\n|-[\s\S]*?\n\1 [^\n]*\n)/.exec(this.buf);
      if (m) {
        this.buf = this.buf.slice(m[0].length);
        return m[0].trimEnd();
      }
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }
  async cmd(line: string): Promise<string> {
    this.s.write(`${line}\r\n`);
    return this.read();
  }
  close(): void {
    this.s.destroy();
  }
}

describe('FTP permissions and paths', () => {
  let d: TestDaemon;
  let base: string;
  let one: string;
  let outside: string;
  let port: number;
  let key: string;
  let s1: string;
  let s2: string;

  beforeAll(async () => {
    d = await startTestDaemon();
    base = tempDir('sec');
    one = join(base, 'one');
    outside = join(base, 'outside');
    for (const p of [one, join(base, 'two'), outside]) mkdirSync(p);
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    writeFileSync(join(one, 'file.txt'), 'inside');
    mkdirSync(join(one, 'dir'));
    symlinkSync(outside, join(one, 'link'));
    symlinkSync(join(outside, 'secret.txt'), join(one, 'filelink'));
    s1 = await makeStorage(d, { name: 'one', path: one });
    s2 = await makeStorage(d, { name: 'two', path: join(base, 'two') });
    await setStorageUsers(
      d,
      [
        { account: 'alice', password: 'alice-pw', permissions: { [s1]: { read: true, write: true, delete: true } } },
        { account: 'reader', password: 'reader-pw', permissions: { [s1]: { read: true } } },
      ],
      { enable: true, storages: [s1] },
    );
    ({ port, key } = await makeFtp(d, { mounts: [{ name: 'one', storage: s1 }, { name: 'two', storage: s2 }] }));
  });
  afterAll(async () => {
    await d.close();
    rmSync(base, { recursive: true, force: true });
  });

  async function login(user: string, pass: string): Promise<Control> {
    const c = await Control.open(port);
    expect(await c.cmd(`USER ${user}`)).toMatch(/^331 /);
    expect(await c.cmd(`PASS ${pass}`)).toMatch(/^230 /);
    return c;
  }

  it('refuses every way out of the storage, for every command that takes a path', async () => {
    const c = await login('alice', 'alice-pw');
    const escapes = ['../outside/secret.txt', '/one/../outside/secret.txt', '..%2foutside%2fsecret.txt', '/one/..%2f..%2foutside', '/one/dir/../../outside', '/one/%2e%2e/outside', '\\..\\outside', '/one/dir\\..\\..\\outside', '/one/link/secret.txt', '/one/filelink', '/one/link'];
    const absolute = ['/etc/passwd', '/outside/secret.txt', join(outside, 'secret.txt')];
    for (const p of [...escapes, ...absolute]) {
      for (const cmd of ['RETR', 'SIZE', 'MDTM', 'CWD', 'MLST', 'DELE', 'RMD', 'MKD', 'RNFR']) {
        const r = await c.cmd(`${cmd} ${p}`);
        expect(r, `${cmd} ${p}`).toMatch(/^5\d\d /);
      }
      expect(await c.cmd('PWD')).toBe('257 "/" is the current directory');
    }
    // From inside a folder too: the session's directory does not help.
    expect(await c.cmd('CWD /one/dir')).toMatch(/^250 /);
    for (const p of ['../../outside/secret.txt', '../link/secret.txt', '..\\..\\outside\\secret.txt']) expect(await c.cmd(`SIZE ${p}`), p).toMatch(/^550 /);
    // CDUP and `CWD ..` move within the virtual tree and stop at its root.
    expect(await c.cmd('CDUP')).toMatch(/^250 /);
    expect(await c.cmd('CWD ..')).toMatch(/^250 /);
    expect(await c.cmd('CWD ..')).toMatch(/^250 /);
    expect(await c.cmd('PWD')).toBe('257 "/" is the current directory');
    // Uploads through a link or with a traversal name land nowhere.
    expect(await c.cmd('RNFR /one/file.txt')).toMatch(/^350 /);
    expect(await c.cmd('RNTO /one/link/moved.txt')).toMatch(/^550 /);
    expect(await c.cmd('RNFR /one/file.txt')).toMatch(/^350 /);
    expect(await c.cmd('RNTO /one/../outside/moved.txt')).toMatch(/^550 /);
    c.close();
    for (const name of ['../escaped.txt', '..%2fescaped.txt', 'link/escaped.txt', '..\\escaped.txt']) {
      const r = await run('curl', ['-sS', '--max-time', '20', '-u', 'alice:alice-pw', '-T', join(one, 'file.txt'), `ftp://127.0.0.1:${port}/one/${name}`]);
      expect(r.code, name).not.toBe(0);
    }
    expect(existsSync(join(outside, 'escaped.txt'))).toBe(false);
    expect(existsSync(join(base, 'escaped.txt'))).toBe(false);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('secret');
    expect(readFileSync(join(one, 'file.txt'), 'utf8')).toBe('inside');
    // A listing leaves out links that lead outside.
    const l = await lftp(port, ['alice', 'alice-pw'], 'cls -1 /one');
    expect(l.out.split('\n').filter(Boolean).sort()).toEqual(['/one/dir/', '/one/file.txt']);
    // The user sees only the storages they have.
    expect((await lftp(port, ['alice', 'alice-pw'], 'cls -1 /')).out.trim()).toBe('/one/');
    expect((await lftp(port, ['alice', 'alice-pw'], 'cls /two')).code).not.toBe(0);
  });

  it('lets a read-only user read and nothing else', async () => {
    const c = await login('reader', 'reader-pw');
    expect(await c.cmd('SIZE /one/file.txt')).toBe('213 6');
    for (const line of ['DELE /one/file.txt', 'MKD /one/new', 'RMD /one/dir', 'RNFR /one/file.txt', 'APPE /one/file.txt', 'STOR /one/x.txt']) {
      expect(await c.cmd(line), line).toMatch(/^550 no write permission|^550 no delete permission/);
    }
    c.close();
    const up = await run('curl', ['-sS', '--max-time', '20', '-u', 'reader:reader-pw', '-T', join(one, 'file.txt'), `ftp://127.0.0.1:${port}/one/up.txt`]);
    expect(up.code).not.toBe(0);
    expect(existsSync(join(one, 'up.txt'))).toBe(false);
    expect(existsSync(join(one, 'dir'))).toBe(true);
  });

  it('keeps anonymous off unless the rule allows it, and read-only then', async () => {
    const c = await Control.open(port);
    expect(await c.cmd('USER anonymous')).toMatch(/^331 /);
    expect(await c.cmd('PASS guest@')).toMatch(/^530 /);
    c.close();
    expect((await lftp(port, null, 'cls /one')).code).not.toBe(0);
    // Switched on for the rule (storage management already allows s1).
    const rule = (await d.call<{ rule: Record<string, unknown> }>('GET', `/api/ftpserver/rules/${key}`)).rule;
    expect((await d.call('PUT', `/api/ftpserver/rules/${key}`, { ...rule, anonymous: true })).ret).toBe(0);
    const a = await Control.open(port);
    expect(await a.cmd('USER ftp')).toMatch(/^331 /);
    expect(await a.cmd('PASS x')).toMatch(/^230 /);
    expect(await a.cmd('SIZE /one/file.txt')).toBe('213 6');
    expect(await a.cmd('MKD /one/anon')).toMatch(/^550 /);
    expect(await a.cmd('DELE /one/file.txt')).toMatch(/^550 /);
    expect(await a.cmd('CWD /two')).toMatch(/^550 /);
    a.close();
    expect(existsSync(join(one, 'anon'))).toBe(false);
    expect((await d.call('PUT', `/api/ftpserver/rules/${key}`, { ...rule, anonymous: false })).ret).toBe(0);
  });

  it('refuses a wrong password, PORT to another host, and commands before login; never logs a password', async () => {
    const c = await Control.open(port);
    expect(await c.cmd('CWD /one')).toMatch(/^530 /);
    expect(await c.cmd('USER alice')).toMatch(/^331 /);
    expect(await c.cmd('PASS not-the-password-xyz')).toMatch(/^530 /);
    expect(await c.cmd('USER alice')).toMatch(/^331 /);
    expect(await c.cmd('PASS alice-pw')).toMatch(/^230 /);
    expect(await c.cmd('PORT 10,1,2,3,200,10')).toMatch(/^500 /);
    expect(await c.cmd('EPRT |1|10.1.2.3|51210|')).toMatch(/^500 /);
    expect(await c.cmd('PORT 127,0,0,1,0,22')).toMatch(/^500 /);
    expect(await c.cmd('RETR /one/file.txt')).toMatch(/^425 /);
    expect(await c.cmd('XYZZY')).toMatch(/^502 /);
    expect(await c.cmd('QUIT')).toMatch(/^221 /);
    c.close();
    const logs = (await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/ftpserver/rules/${key}/logs`, undefined, { headers: { 'lucky-lang': 'en_US' } })).logs.map((l) => l.log).join('\n');
    expect(logs).toMatch(/login failed from 127\.0\.0\.1: alice/);
    expect(logs).toMatch(/127\.0\.0\.1 alice RETR \/one\/\.\.\/outside\/secret\.txt → failed 550, 0 B/);
    expect(logs).not.toContain('not-the-password-xyz');
    expect(logs).not.toContain('alice-pw');
    const zh = (await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/ftpserver/rules/${key}/logs`, undefined, { headers: { 'lucky-lang': 'zh_CN' } })).logs.map((l) => l.log).join('\n');
    expect(zh).toMatch(/127\.0\.0\.1 登录失败：alice/);
  });
});
