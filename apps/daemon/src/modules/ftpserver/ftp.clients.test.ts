/**
 * Real FTP clients against the server: lftp and curl list, upload, download (sha256 compared),
 * resume an interrupted transfer both ways (REST + RETR, REST + STOR), rename, delete, make and
 * remove folders, in passive mode (PASV and EPSV) and active mode (PORT/EPRT), with UTF-8 names.
 * Every test runs twice: files on the native relay thread (sendfile / splice), and with the relay
 * switched off (LUCKY_NATIVE_RELAY=0), through JavaScript streams; the relay's own count of the
 * file transfers it was handed says which path each transfer took.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeFileTransfers } from '../../core/relay.js';
import { makeStorage, setStorageUsers, tempDir } from '../../test/storages.js';
import { Control, expectCode } from './testing/control.js';
import { lftp, makeFtp, ruleView, run, startTestDaemon, type TestDaemon } from './testing/daemon.js';

function sha256(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(file)
      .on('data', (c) => h.update(c))
      .on('end', () => resolve(h.digest('hex')))
      .on('error', reject);
  });
}

const ALICE: [string, string] = ['alice', 'alice-pw'];

/**
 * This process's open descriptors (the daemon runs in it) by what they are, pipes apart: the relay
 * thread keeps idle pipes for reuse (a bounded pool), so their number may only not grow.
 */
function openFds(): { others: string[]; pipes: number } {
  const others: string[] = [];
  let pipes = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    let what: string;
    try {
      what = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // the directory listing's own descriptor, closed already
    }
    if (what.startsWith('pipe:')) pipes++;
    else others.push(`${fd} ${what}`);
  }
  return { others: others.sort(), pipes };
}

/** Resolves when the socket closes, whether by an end or a reset (which an aborted upload gets). */
const closedOf = (sock: Socket) => new Promise<void>((resolve) => sock.once('close', () => resolve()));

/** Waits (up to 5 s) until `f()` is true; whether it became so. */
async function waitFor(f: () => boolean): Promise<boolean> {
  for (let i = 0; i < 200 && !f(); i++) await new Promise((r) => setTimeout(r, 25));
  return f();
}

describe.each([
  { path: 'native relay', nativeRelay: true },
  { path: 'JavaScript streams', nativeRelay: false },
])('FTP with lftp and curl ($path)', ({ nativeRelay }) => {
  let d: TestDaemon;
  let quotaStore: string;
  let quotaPort: number;
  let base: string;
  let store: string;
  let local: string;
  let port: number;
  let key: string;
  const url = (p: string) => `ftp://127.0.0.1:${port}${p}`;
  const curl = (args: string[]) => run('curl', ['-sS', '--max-time', '60', '-u', `${ALICE[0]}:${ALICE[1]}`, ...args]);

  /** File transfers the relay thread was handed while `f` ran: all of them natively, none in JavaScript. */
  async function handed(f: () => Promise<void>): Promise<number> {
    const before = nativeFileTransfers().started;
    await f();
    return nativeFileTransfers().started - before;
  }

  beforeAll(async () => {
    d = await startTestDaemon({ env: { nativeRelay } });
    base = tempDir('clients');
    store = join(base, 'store');
    local = join(base, 'local');
    mkdirSync(store);
    mkdirSync(local);
    writeFileSync(join(store, 'hello.txt'), 'hello ftp\n');
    mkdirSync(join(store, 'docs'));
    writeFileSync(join(store, 'docs', 'ünïcødé 文件.txt'), 'utf-8 name\n');
    const s = await makeStorage(d, { name: 'files', path: store });
    quotaStore = join(base, 'quota');
    mkdirSync(quotaStore);
    const q = await makeStorage(d, { name: 'quota', path: quotaStore, quota: 3_000_000 });
    const all = { read: true, write: true, delete: true };
    await setStorageUsers(d, [{ account: 'alice', password: 'alice-pw', permissions: { [s]: all, [q]: all } }]);
    ({ port, key } = await makeFtp(d, { mounts: [{ name: '', storage: s }] }));
    ({ port: quotaPort } = await makeFtp(d, { mounts: [{ name: '', storage: q }] }));
  });
  afterAll(async () => {
    await d.close();
    rmSync(base, { recursive: true, force: true });
  });

  it('lists with lftp (MLSD) and curl (LIST, NLST), UTF-8 names included', async () => {
    const l = await lftp(port, ALICE, 'cls -1 /; cls -1 /docs');
    expect(l.err).toBe('');
    expect(l.out.split('\n').filter(Boolean).sort()).toEqual(['/docs/', '/docs/ünïcødé 文件.txt', '/hello.txt']);
    const list = await curl([url('/')]);
    expect(list.code).toBe(0);
    expect(list.out).toMatch(/^d[rwx-]{9} 1 ftp ftp +0 \w{3} [ \d]\d .{5} docs\r?$/m);
    expect(list.out).toMatch(/^-[rwx-]{9} 1 ftp ftp +10 \w{3} [ \d]\d .{5} hello\.txt\r?$/m);
    const names = await curl(['--list-only', url('/docs/')]);
    expect(names.out).toMatch(/^ünïcødé 文件\.txt\r?\n$/);
  });

  it('uploads and downloads 8 MiB with both clients, the same bytes (sha256), in PASV, EPSV and active mode', async () => {
    const src = join(local, 'big.bin');
    writeFileSync(src, randomBytes(8 * 1024 * 1024));
    const want = await sha256(src);
    const n = await handed(async () => {
      // lftp: PASV up, EPSV down.
      expect((await lftp(port, ALICE, `put ${src} -o /up/lftp.bin`)).code).not.toBe(0); // no such folder yet
      expect((await lftp(port, ALICE, `mkdir /up; put ${src} -o /up/lftp.bin`)).err).toBe('');
      expect(await sha256(join(store, 'up', 'lftp.bin'))).toBe(want);
      const back = join(local, 'lftp.back');
      expect((await lftp(port, ALICE, `get /up/lftp.bin -o ${back}`, { epsv: true })).err).toBe('');
      expect(await sha256(back)).toBe(want);
      // curl: EPSV (its default) up, PASV down, then active (EPRT/PORT) both ways.
      expect((await curl(['-T', src, url('/up/curl.bin')])).code).toBe(0);
      expect(await sha256(join(store, 'up', 'curl.bin'))).toBe(want);
      const cback = join(local, 'curl.back');
      expect((await curl(['--disable-epsv', '-o', cback, url('/up/curl.bin')])).code).toBe(0);
      expect(await sha256(cback)).toBe(want);
      expect((await curl(['-P', '127.0.0.1', '-T', src, url('/up/active.bin')])).code).toBe(0);
      expect(await sha256(join(store, 'up', 'active.bin'))).toBe(want);
      const aback = join(local, 'active.back');
      expect((await curl(['-P', '127.0.0.1', '--disable-eprt', '-o', aback, url('/up/active.bin')])).code).toBe(0);
      expect(await sha256(aback)).toBe(want);
    });
    // Six file transfers (the refused put never opened a data connection); listings stay in JavaScript.
    expect(n).toBe(nativeRelay ? 6 : 0);
    const f = (await ruleView(d, key)).figures;
    expect(f.uploads).toBeGreaterThanOrEqual(3);
    expect(f.bytesIn).toBeGreaterThanOrEqual(3 * 8 * 1024 * 1024);
    expect(f.bytesOut).toBeGreaterThanOrEqual(3 * 8 * 1024 * 1024);
  });

  it('resumes an interrupted download and an interrupted upload (REST both ways)', async () => {
    const src = join(local, 'resume.bin');
    writeFileSync(src, randomBytes(3 * 1024 * 1024 + 123));
    const want = await sha256(src);
    writeFileSync(join(store, 'resume.bin'), readFileSync(src));
    // A download cut after 1 MiB (what a dropped connection leaves), continued with REST + RETR.
    const part = join(local, 'resume.part');
    writeFileSync(part, readFileSync(src).subarray(0, 1024 * 1024));
    const n = await handed(async () => {
      const c = await curl(['-C', '-', '-o', part, url('/resume.bin')]);
      expect(c.code).toBe(0);
      expect(await sha256(part)).toBe(want);
      // lftp's own resume (get -c) of a truncated copy.
      truncateSync(part, 777_777);
      expect((await lftp(port, ALICE, `get -c /resume.bin -o ${part}`)).err).toBe('');
      expect(await sha256(part)).toBe(want);
      // An upload cut after 1 MiB on the server, continued: curl asks SIZE then sends the rest with APPE;
      // lftp (put -c) with REST + STOR.
      writeFileSync(join(store, 'up-resume.bin'), readFileSync(src).subarray(0, 1024 * 1024));
      expect((await curl(['-C', '-', '-T', src, url('/up-resume.bin')])).code).toBe(0);
      expect(await sha256(join(store, 'up-resume.bin'))).toBe(want);
      writeFileSync(join(store, 'up-resume2.bin'), readFileSync(src).subarray(0, 1_500_001));
      const l = await lftp(port, ALICE, `set ftp:rest-stor true; put -c ${src} -o /up-resume2.bin`);
      expect(l.err).toBe('');
      expect(await sha256(join(store, 'up-resume2.bin'))).toBe(want);
      expect(statSync(join(store, 'up-resume2.bin')).size).toBe(statSync(src).size);
    });
    expect(n).toBe(nativeRelay ? 4 : 0);
  });

  it('takes a transfer back at once on ABOR (both ways) and when the session drops, leaving no descriptor open', async () => {
    const size = 32 * 1024 * 1024;
    writeFileSync(join(store, 'abor.bin'), randomBytes(size));
    // One transfer each way first: the relay thread (its epoll set, its pipe pool) starts with the first.
    writeFileSync(join(local, 'warm.bin'), 'warm');
    expect((await curl(['-T', join(local, 'warm.bin'), url('/warm.bin')])).code).toBe(0);
    expect((await curl([url('/warm.bin')])).out).toBe('warm');
    const fds = openFds();
    const c = await Control.login(port, ...ALICE);
    const n = await handed(async () => {
      // A download read for 1 MiB, then no more: the server's socket buffer fills and the transfer waits.
      let data = await c.passive();
      // Listened for at once: the close may come before the test gets to wait for it.
      const closed = closedOf(data);
      expectCode(await c.cmd('RETR abor.bin'), 150);
      let got = 0;
      let stopped = false;
      await new Promise<void>((resolve) =>
        data.on('data', (b: Buffer) => {
          got += b.length;
          if (got >= 1024 * 1024 && !stopped) {
            stopped = true;
            data.pause();
            resolve();
          }
        }),
      );
      c.send('ABOR');
      expectCode(await c.reply(), 426);
      expectCode(await c.reply(), 226);
      // The server closed the data connection after what its buffers held: far from the whole file.
      data.resume();
      await closed;
      expect(got).toBeLessThan(size);
      // An upload under way (2 MiB sent, the data connection kept open), then ABOR.
      const upPath = join(store, 'abor-up.bin');
      data = await c.passive();
      const upClosed = closedOf(data);
      expectCode(await c.cmd('STOR abor-up.bin'), 150);
      data.write(randomBytes(2 * 1024 * 1024));
      expect(await waitFor(() => existsSync(upPath) && statSync(upPath).size > 0)).toBe(true);
      c.send('ABOR');
      expectCode(await c.reply(), 426);
      expectCode(await c.reply(), 226);
      await upClosed;
      // The session is fine after it: a small transfer works.
      expectCode(await c.cmd('SIZE abor.bin'), 213);
      // An upload under way when the control connection drops: the session's end takes it back.
      data = await c.passive();
      const dropClosed = closedOf(data);
      expectCode(await c.cmd('STOR abor-drop.bin'), 150);
      data.write(randomBytes(2 * 1024 * 1024));
      const dropPath = join(store, 'abor-drop.bin');
      expect(await waitFor(() => existsSync(dropPath) && statSync(dropPath).size > 0)).toBe(true);
      c.close();
      await dropClosed;
    });
    expect(n).toBe(nativeRelay ? 3 : 0);
    expect(nativeFileTransfers().active).toBe(0);
    // Sockets and files all closed again, no pipe more than before.
    await waitFor(() => openFds().others.join() === fds.others.join());
    expect(openFds().others).toEqual(fds.others);
    expect(openFds().pipes).toBeLessThanOrEqual(fds.pipes);
  });

  it('stops an upload at the storage quota in the middle of it (552), the storage kept within it', async () => {
    const src = join(local, 'over.bin');
    writeFileSync(src, randomBytes(8 * 1024 * 1024));
    // A raw client: curl, still sending when the server closes the data connection, reports the
    // reset rather than the reply.
    const n = await handed(async () => {
      const c = await Control.login(quotaPort, ...ALICE);
      const data = await c.passive();
      expectCode(await c.cmd('STOR over.bin'), 150);
      data.end(readFileSync(src));
      expectCode(await c.reply(), 552);
      c.close();
    });
    expect(n).toBe(nativeRelay ? 1 : 0);
    const kept = statSync(join(quotaStore, 'over.bin')).size;
    expect(kept).toBeLessThanOrEqual(3_000_000);
    // Stopped on the way, not refused at the start.
    expect(kept).toBeGreaterThan(1_000_000);
    // What fits still goes in.
    writeFileSync(join(local, 'fits.bin'), randomBytes(100_000));
    rmSync(join(quotaStore, 'over.bin'));
    const ok = await run('curl', ['-sS', '--max-time', '60', '-u', `${ALICE[0]}:${ALICE[1]}`, '-T', join(local, 'fits.bin'), `ftp://127.0.0.1:${quotaPort}/fits.bin`]);
    expect(ok.code).toBe(0);
    expect(readFileSync(join(quotaStore, 'fits.bin'))).toEqual(readFileSync(join(local, 'fits.bin')));
  });

  it('renames, deletes, makes and removes folders', async () => {
    writeFileSync(join(store, 'old.txt'), 'x');
    const l = await lftp(port, ALICE, 'mkdir -p /a/b; mv /old.txt /a/b/new.txt; rmdir /a/b');
    expect(l.code).not.toBe(0); // not empty
    expect(readFileSync(join(store, 'a', 'b', 'new.txt'), 'utf8')).toBe('x');
    expect(existsSync(join(store, 'old.txt'))).toBe(false);
    const r = await lftp(port, ALICE, 'rm /a/b/new.txt; rmdir /a/b; rmdir /a');
    expect(r.err).toBe('');
    expect(existsSync(join(store, 'a'))).toBe(false);
    // curl's quote commands: the raw RNFR/RNTO, DELE, MKD, RMD.
    writeFileSync(join(store, 'q.txt'), 'q');
    const q = await curl(['-Q', 'MKD qdir', '-Q', 'RNFR q.txt', '-Q', 'RNTO qdir/q2.txt', '-Q', 'DELE qdir/q2.txt', '-Q', 'RMD qdir', url('/')]);
    expect(q.code).toBe(0);
    expect(readdirSync(store)).not.toContain('qdir');
    expect(readdirSync(store)).not.toContain('q.txt');
    // A folder cannot be moved into itself.
    mkdirSync(join(store, 'loop'));
    const self = await curl(['-Q', 'RNFR loop', '-Q', 'RNTO loop/inner', url('/')]);
    expect(self.code).not.toBe(0);
    expect(existsSync(join(store, 'loop'))).toBe(true);
  });

  it('answers SIZE, MDTM, MLST, STAT and FEAT as clients expect', async () => {
    const q = await curl(['-v', '-Q', 'SIZE hello.txt', '-Q', 'MDTM hello.txt', '-Q', 'MLST hello.txt', '-Q', 'FEAT', '-Q', 'STAT', '-Q', 'HELP', '-Q', 'NOOP', '-Q', 'SYST', '-Q', 'ALLO 10', '-I', url('/hello.txt')]);
    expect(q.code).toBe(0);
    expect(q.err).toMatch(/< 213 10\r?$/m);
    expect(q.err).toMatch(/< 213 \d{14}\r?$/m);
    expect(q.err).toMatch(/type=file;size=10;modify=\d{14};perm=rawfd; \/hello\.txt/);
    expect(q.err).toMatch(/< 211-Features:[\s\S]*UTF8[\s\S]*EPSV[\s\S]*MLST[\s\S]*AUTH TLS/);
    expect(q.err).toMatch(/Logged in as alice/);
    expect(q.err).toMatch(/< 215 UNIX Type: L8/);
    expect(q.err).toMatch(/< 202 ALLO/);
  });
});
