/**
 * The built daemon as a real process: first start, kill -9 and restart, deleting lucky_base.lkcf,
 * bad flags and files, self-restart. Needs `npm run build` first (npm test does it).
 */
import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from './test/harness.js';
import { MAIN, adoptPid, api, cleanUp, login, run, tempDir, waitFor } from './test/proc.js';

afterAll(cleanUp);

describe('daemon process', () => {
  it('is built', () => {
    expect(existsSync(MAIN), `${MAIN} missing: run npm run build`).toBe(true);
  });

  it('first start, settings survive kill -9, deleting lucky_base.lkcf resets login and keeps module data', async () => {
    const dir = tempDir();
    const port = await freePort();
    const args = ['--port', String(port), '--host', '127.0.0.1', '--data-dir', dir];

    // First start: a random password, printed once in a box.
    let d = run(args);
    const pw = (await waitFor(d, /password: (\S+)/))[1]!;
    await waitFor(d, /listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(pw).toMatch(/^[A-Za-z0-9]{20}$/);
    expect((await login(port, 'admin')).ret).toBe(2);
    const { token } = await login(port, pw);
    expect(token).toBeTruthy();
    expect((await api(port, 'PUT', '/api/baseconfigure', { LogLevel: 5, FrontendDisableAutoExpandLeftMenu: true }, token)).ret).toBe(0);
    const dev = await api<{ key: string }>(port, 'POST', '/api/wol/rules', { name: 'NAS', macs: ['00:11:22:33:44:55'] }, token);
    expect(dev.ret).toBe(0);
    // The program log the console shows never holds the password.
    const logs = await api<{ logs: { log: string }[] }>(port, 'GET', '/api/logs?pre=0', undefined, token);
    expect(logs.logs.map((l) => l.log).join('\n')).not.toContain(pw);

    d.proc.kill('SIGKILL');
    await d.exited;

    // Restart: same settings, same login, the session and the device are still there; no new password.
    d = run(args);
    await waitFor(d, /listening on/);
    expect(d.out()).not.toMatch(/password: /);
    expect((await api<{ FrontendDisableAutoExpandLeftMenu: boolean }>(port, 'GET', '/frontendcontroll')).FrontendDisableAutoExpandLeftMenu).toBe(true);
    const cfg = await api<{ baseconfigure: { LogLevel: number } }>(port, 'GET', '/api/baseconfigure', undefined, token);
    expect(cfg.baseconfigure.LogLevel).toBe(5);
    expect((await login(port, pw)).ret).toBe(0);
    d.proc.kill('SIGTERM');
    expect(await d.exited).toBe(0);

    // Delete the base config: login and settings reset, module data intact.
    unlinkSync(join(dir, 'lucky_base.lkcf'));
    d = run(args, { LUCKY_ADMIN_PASSWORD: 'reset-password-1' });
    await waitFor(d, /listening on/);
    expect(d.out()).not.toMatch(/password: /);
    expect((await api(port, 'GET', '/api/status', undefined, token)).ret).toBe(-1);
    expect((await login(port, pw)).ret).toBe(2);
    const fresh = await login(port, 'reset-password-1');
    expect(fresh.ret).toBe(0);
    expect((await api<{ FrontendDisableAutoExpandLeftMenu: boolean }>(port, 'GET', '/frontendcontroll')).FrontendDisableAutoExpandLeftMenu).toBe(false);
    const list = await api<{ list: { key: string; name: string }[] }>(port, 'GET', '/api/wol/rules', undefined, fresh.token);
    expect(list.list).toEqual([expect.objectContaining({ key: dev.key, name: 'NAS' })]);
    d.proc.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  });

  it('refuses invalid flags and environment with one line and exit code 2', async () => {
    for (const [args, env, re] of [
      [['--port', 'abc'], {}, /invalid --port/],
      [['--port', '70000'], {}, /invalid --port/],
      [['--bogus'], {}, /Unknown option '--bogus'/],
      [['--host', 'nowhere'], {}, /invalid --host/],
      [[], { LUCKY_PORT: '0' }, /invalid --port \/ LUCKY_PORT/],
    ] as const) {
      const d = run([...args, '--data-dir', tempDir()], env as Record<string, string>);
      expect(await d.exited, args.join(' ')).toBe(2);
      expect(d.out().trim().split('\n')).toHaveLength(1);
      expect(d.out()).toMatch(re);
    }
  });

  it('refuses to start on an invalid lucky_base.lkcf, names the field, leaves the file alone', async () => {
    const dir = tempDir();
    const port = await freePort();
    let d = run(['--port', String(port), '--host', '127.0.0.1', '--data-dir', dir], { LUCKY_ADMIN_PASSWORD: 'x-password' });
    await waitFor(d, /listening on/);
    d.proc.kill('SIGTERM');
    await d.exited;
    const file = join(dir, 'lucky_base.lkcf');
    const cfg = JSON.parse(readFileSync(file, 'utf8'));
    cfg.AdminWebListenPort = 'sixteen';
    const edited = JSON.stringify(cfg, null, 1);
    writeFileSync(file, edited);
    d = run(['--data-dir', dir]);
    expect(await d.exited).toBe(1);
    expect(d.out()).toMatch(/refusing to start: .*lucky_base\.lkcf: Invalid AdminWebListenPort/);
    expect(readFileSync(file, 'utf8')).toBe(edited);
  });

  it('--disable-2fa and --reset-safe-url let a locked-out owner back in', async () => {
    const dir = tempDir();
    const port = await freePort();
    const args = ['--port', String(port), '--host', '127.0.0.1', '--data-dir', dir];
    let d = run(args, { LUCKY_ADMIN_PASSWORD: 'owner-pw-1' });
    await waitFor(d, /listening on/);
    d.proc.kill('SIGTERM');
    await d.exited;
    const file = join(dir, 'lucky_base.lkcf');
    const cfg = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify({ ...cfg, TwoFASecret: 'JBSWY3DPEHPK3PXP', SafeURL: 'hidden-door' }));

    d = run(args);
    await waitFor(d, /listening on/);
    expect((await login(port, 'owner-pw-1').catch(() => ({ ret: 404 }))).ret).not.toBe(0);
    d.proc.kill('SIGTERM');
    await d.exited;

    const fix = run(['--data-dir', dir, '--disable-2fa', '--reset-safe-url']);
    expect(await fix.exited).toBe(0);
    expect(fix.out()).toContain('two-factor login is off');
    expect(fix.out()).toContain('safe entry path is removed');

    d = run(args);
    await waitFor(d, /listening on/);
    expect((await login(port, 'owner-pw-1')).ret).toBe(0);
    d.proc.kill('SIGTERM');
    await d.exited;
  });

  it('restarts itself: a new process on the same port, or exit 75 under a supervisor', async () => {
    const dir = tempDir();
    const port = await freePort();
    const args = ['--port', String(port), '--host', '127.0.0.1', '--data-dir', dir];
    const d = run(args, { LUCKY_ADMIN_PASSWORD: 'restart-pw-1' });
    await waitFor(d, /listening on/);
    const { token } = await login(port, 'restart-pw-1');
    const before = await api<{ info: { pid: number } }>(port, 'GET', '/api/info', undefined, token);
    expect((await api(port, 'GET', '/api/reboot_program', undefined, token)).ret).toBe(0);
    expect(await d.exited).toBe(0);
    let pid = 0;
    for (let i = 0; i < 100 && !pid; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const r = await api<{ info: { pid: number } }>(port, 'GET', '/api/info', undefined, token).catch(() => undefined);
      if (r?.ret === 0) pid = r.info.pid;
    }
    expect(pid).toBeGreaterThan(0);
    adoptPid(pid);
    expect(pid).not.toBe(before.info.pid);
    process.kill(pid, 'SIGTERM');

    const port2 = await freePort();
    const s = run(['--port', String(port2), '--host', '127.0.0.1', '--data-dir', tempDir()], {
      LUCKY_ADMIN_PASSWORD: 'restart-pw-1',
      LUCKY_SUPERVISOR: 'npm',
    });
    await waitFor(s, /listening on/);
    const t2 = await login(port2, 'restart-pw-1');
    expect((await api(port2, 'GET', '/api/reboot_program', undefined, t2.token)).ret).toBe(0);
    expect(await s.exited).toBe(75);
  });
});
