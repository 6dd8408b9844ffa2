// The login portal's users, second factors and sessions: what the API refuses, what it never shows,
// TOTP enrolment, and sessions that end when idle, when old, when revoked or when their user's
// password changed, and that outlive a restart. The web rules that use it: web.portal.test.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDb, type Db } from '../../core/db.js';
import { totpCode } from '../../core/totp.js';
import { startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { portalMigrations, PortalSessions, sessionIdOf, tokenHash } from './portal.sessions.js';

const EN = { headers: { 'lucky-lang': 'en_US' } };
const TOTP = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const signIn = (user: string, password: string, code = '') => ({ user, password, code, address: '192.0.2.7', agent: 'test', rule: 'site' });

describe('portal users through the API', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startTestDaemon();
  });
  afterAll(async () => {
    await d?.close();
  });

  it('refuses a user without a password, a bad name, a bad secret and a name taken in another case; shows no secret', async () => {
    expect((await d.call('POST', '/api/portal/rules', { name: 'alice' }, EN)).msg).toBe('a new user needs a password');
    expect((await d.call('POST', '/api/portal/rules', { name: 'al ice', password: 'x' }, EN)).ret).not.toBe(0);
    expect((await d.call('POST', '/api/portal/rules', { name: 'alice', password: 'x', totp: 'not base32!' }, EN)).msg).toMatch(/base32/);
    const made = await d.call<{ key: string }>('POST', '/api/portal/rules', { name: 'alice', password: 'wonderland', totp: TOTP }, EN);
    expect(made.ret, made.msg).toBe(0);
    expect((await d.call('POST', '/api/portal/rules', { name: 'ALICE', password: 'x' }, EN)).ret).not.toBe(0);
    const got = await d.call<{ rule: { password: string; totp: string; sessions: number; lastLogin: number } }>('GET', `/api/portal/rules/${made.key}`);
    expect(got.rule).toMatchObject({ password: '******', totp: '******', sessions: 0, lastLogin: 0 });
    // The stored hash, never the password.
    const row = d.runtime.db.prepare<[string], { data: string }>("SELECT data FROM rules WHERE module = 'portal' AND key = ?").get(made.key)!;
    expect(row.data).not.toContain('wonderland');
    expect(JSON.parse(row.data).password).toMatch(/^scrypt\$/);
  });

  it('enrols a second factor: a new secret with its QR code, and a check of the app’s code', async () => {
    const e = await d.call<{ secret: string; otpauthUrl: string; qrcode: string }>('POST', '/api/portal/totp', { name: 'bob' });
    expect(e.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(e.otpauthUrl).toContain('otpauth://totp/Lucky:bob');
    expect(e.qrcode).toMatch(/^data:image\/png;base64,/);
    expect((await d.call<{ valid: boolean }>('POST', '/api/portal/totp/check', { secret: e.secret, code: totpCode(e.secret) })).valid).toBe(true);
    expect((await d.call<{ valid: boolean }>('POST', '/api/portal/totp/check', { secret: e.secret, code: '000000' })).valid).toBe(totpCode(e.secret) === '000000');
  });
});

describe('portal sessions (real SQLite, a clock of the test)', () => {
  let dir: string;
  let db: Db;
  let now = 1_000_000;
  const life = { idleMs: 60_000 * 10, absoluteMs: 3_600_000 };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lucky-portal-'));
    db = openDb(dir);
    migrate(db, 'portal', portalMigrations);
  });
  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('ends a session idle too long, renews one in use, and ends every one at its absolute end', () => {
    const s = new PortalSessions(db, () => now);
    const idle = s.create('alice', 'stamp', '192.0.2.1', 'ua');
    const busy = s.create('bob', 'stamp', '192.0.2.2', 'ua');
    // Only the token's hash is kept.
    expect(JSON.stringify(db.prepare('SELECT * FROM portal_sessions').all())).not.toContain(idle);
    for (let i = 0; i < 6; i++) {
      now += 120_000;
      expect(s.use(busy, life)?.user).toBe('bob');
    }
    expect(s.use(idle, life)).toBeNull();
    now += 30 * 60_000;
    // Used within its idle time all along, still ended an hour after its sign-in.
    for (let i = 0; i < 3; i++) {
      now += 5 * 60_000;
      s.use(busy, life);
    }
    expect(s.use(busy, life)).toBeNull();
  });

  it('is kept across a reopen of the database; revoked by its id; a user’s all at once', () => {
    const first = new PortalSessions(db, () => now);
    const a = first.create('carol', 'stamp', '192.0.2.3', 'ua');
    const b = first.create('carol', 'stamp', '192.0.2.3', 'ua');
    const c = first.create('dave', 'stamp', '192.0.2.4', 'ua');
    const again = new PortalSessions(db, () => now);
    expect(again.use(a, life)?.user).toBe('carol');
    expect(again.revoke(sessionIdOf(tokenHash(a)))?.user).toBe('carol');
    expect(again.use(a, life)).toBeNull();
    expect(again.dropUser('carol')).toBe(1);
    expect(again.use(b, life)).toBeNull();
    expect(again.list(life).map((s) => s.user)).toEqual(['dave']);
    expect(again.use(c, life)?.user).toBe('dave');
  });
});

describe('portal sign-in through the service, across a restart', () => {
  it('signs in with the second factor, keeps the session over a restart, ends it when the password changes', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lucky-portal-restart-'));
    let d = await startTestDaemon({ dataDir });
    try {
      const made = await d.call<{ key: string }>('POST', '/api/portal/rules', { name: 'erin', password: 'secret-1', totp: TOTP }, EN);
      expect(made.ret, made.msg).toBe(0);
      let portal = await d.runtime.deps.modules.service('portal');
      expect(await portal.signIn(signIn('erin', 'secret-1'))).toEqual({ ok: false, reason: 'wrong' });
      const ok = await portal.signIn(signIn('Erin', 'secret-1', totpCode(TOTP)));
      if (!ok.ok) throw new Error(`refused: ${ok.reason}`);
      expect(ok.user).toBe('erin');
      expect((await d.call<{ rule: { sessions: number } }>('GET', `/api/portal/rules/${made.key}`)).rule.sessions).toBe(1);

      await d.close();
      d = await startTestDaemon({ dataDir });
      portal = await d.runtime.deps.modules.service('portal');
      expect(portal.pass(ok.token)?.user).toBe('erin');
      // A new password signs the old sessions out.
      const rule = await d.call<{ rule: Record<string, unknown> }>('GET', `/api/portal/rules/${made.key}`);
      expect((await d.call('PUT', `/api/portal/rules/${made.key}`, { ...rule.rule, password: 'secret-2' })).ret).toBe(0);
      expect(portal.pass(ok.token)).toBeNull();
    } finally {
      await d.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
