import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { inCidr, ipBytes, isLocalAddress, parseCidr } from './cidr.js';
import { LoginGuard } from './loginguard.js';
import { loginLocks } from './loginlocks.js';
import { coreMigrations, migrate, openDb } from './db.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogBuffer } from './logbuffer.js';
import { createProgramLog } from './logs.js';
import { randomPassword } from './password.js';
import { pickAddresses } from './netinfo.js';
import { eventLoopDelayOf } from './status.js';
import { Secret, TOTP } from 'otpauth';
import { totpCode, verifyTotp } from './totp.js';

/** Codes made by the otpauth library, as authenticator apps make them: our own check must accept them. */
const totpFor = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });

describe('addresses', () => {
  it('parses v4, v6 and v4-mapped v6', () => {
    expect([...ipBytes('10.1.2.3')!]).toEqual([10, 1, 2, 3]);
    expect([...ipBytes('::ffff:192.168.0.1')!]).toEqual([192, 168, 0, 1]);
    expect(ipBytes('2001:db8::1')!.length).toBe(16);
    expect(ipBytes('nope')).toBeNull();
  });
  it('tests ranges', () => {
    expect(inCidr(ipBytes('192.168.7.9')!, parseCidr('192.168.0.0/16')!)).toBe(true);
    expect(inCidr(ipBytes('192.169.0.1')!, parseCidr('192.168.0.0/16')!)).toBe(false);
    expect(inCidr(ipBytes('2001:db8::5')!, parseCidr('2001:db8::/32')!)).toBe(true);
    expect(inCidr(ipBytes('10.0.0.1')!, parseCidr('::/0')!)).toBe(false);
    expect(inCidr(ipBytes('10.0.0.1')!, parseCidr('10.0.0.1')!)).toBe(true);
  });
  it('knows local addresses', () => {
    for (const ip of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '10.2.3.4', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.1.1', 'fe80::1', 'fd12::3']) {
      expect(isLocalAddress(ip), ip).toBe(true);
    }
    for (const ip of ['8.8.8.8', '172.32.0.1', '2001:db8::1', '::ffff:1.1.1.1', '11.0.0.1', 'garbage']) {
      expect(isLocalAddress(ip), ip).toBe(false);
    }
  });
});

describe('login guard', () => {
  const opts = { freeFailures: 3, baseLockSeconds: 10, maxLockSeconds: 40, globalFailuresPerMinute: 100 };
  it('locks after the free failures, longer each time, and forgets on success', () => {
    let now = 1_000_000;
    const g = new LoginGuard(() => opts, () => now);
    expect(g.fail('a')).toBe(0);
    expect(g.fail('a')).toBe(0);
    expect(g.fail('a')).toBe(10);
    expect(g.lockedFor('b')).toBe(0);
    now += 10_001;
    expect(g.lockedFor('a')).toBe(0);
    expect(g.fail('a')).toBe(20);
    now += 20_001;
    expect(g.fail('a')).toBe(40);
    now += 40_001;
    expect(g.fail('a')).toBe(40);
    expect(g.list()).toEqual([{ address: 'a', failures: 6, lockedUntil: now + 40_000 }]);
    g.succeed('a');
    expect(g.lockedFor('a')).toBe(0);
  });
  it('locks everyone for a minute when failures from all addresses pile up', () => {
    let now = 5_000_000;
    const g = new LoginGuard(() => ({ ...opts, globalFailuresPerMinute: 5 }), () => now);
    for (let i = 0; i < 4; i++) expect(g.fail(`10.0.0.${i}`)).toBe(0);
    expect(g.fail('10.0.0.9')).toBe(60);
    expect(g.lockedFor('10.0.0.200')).toBe(60);
    expect(g.list()[0]).toMatchObject({ address: '*' });
    g.clear();
    expect(g.lockedFor('10.0.0.200')).toBe(0);
    now += 1;
  });
});

describe('login guard: allow list, lift, a lock kept in the database', () => {
  const opts = { freeFailures: 2, baseLockSeconds: 10, maxLockSeconds: 40, globalFailuresPerMinute: 3, allowList: ['192.168.7.0/24'] };
  it('never locks or counts an allowed address, even in a flood that locks everyone else', () => {
    const g = new LoginGuard(() => opts, () => 1_000);
    for (let i = 0; i < 10; i++) expect(g.fail('192.168.7.9')).toBe(0);
    expect(g.list()).toEqual([]);
    for (let i = 0; i < 3; i++) g.fail(`10.1.0.${i}`);
    expect(g.lockedFor('10.9.9.9')).toBe(60);
    expect(g.lockedFor('192.168.7.9')).toBe(0);
    expect(g.lift('*')).toBe(true);
    expect(g.lockedFor('10.9.9.9')).toBe(0);
  });
  it('lets one address have two password checks running at once, the allow list any number', () => {
    const g = new LoginGuard(() => opts, () => 1_000);
    const a = g.admit('10.3.0.1');
    const b = g.admit('10.3.0.1');
    expect(a && b).toBeTruthy();
    expect(g.admit('10.3.0.1')).toBeNull();
    expect(g.admit('10.3.0.2')).not.toBeNull();
    a!();
    a!();
    const c = g.admit('10.3.0.1');
    expect(c).not.toBeNull();
    expect(g.admit('10.3.0.1')).toBeNull();
    for (let i = 0; i < 5; i++) expect(g.admit('192.168.7.1')).not.toBeNull();
  });
  it('keeps locks in the database for the next process, tells each new lock once, and lifts one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lucky-locks-'));
    try {
      const db = openDb(dir);
      migrate(db, 'core', coreMigrations);
      const told: string[] = [];
      let now = 5_000;
      const g = new LoginGuard(() => opts, () => now, { store: loginLocks(db), onLock: (a, s, f) => told.push(`${a} ${s} ${f}`) });
      g.fail('10.2.0.1');
      g.fail('10.2.0.1');
      g.fail('10.2.0.1');
      g.fail('10.2.0.2');
      g.fail('10.2.0.2');
      expect(told).toEqual(['10.2.0.1 10 2', '10.2.0.2 10 2']);
      // The next process (same database) finds both locks; lifting one leaves the other.
      const next = new LoginGuard(() => opts, () => now, { store: loginLocks(db) });
      expect(next.lockedFor('10.2.0.1')).toBe(20);
      expect(next.lift('10.2.0.1')).toBe(true);
      expect(next.lift('10.2.0.1')).toBe(false);
      now += 10_001;
      // Expired locks are not loaded again.
      const third = new LoginGuard(() => opts, () => now, { store: loginLocks(db) });
      expect(third.list()).toEqual([]);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('program log', () => {
  it('returns lines after `pre`, with strictly increasing timestamps, bounded', () => {
    const b = new LogBuffer(3);
    b.push('a', 100);
    b.push('b', 100);
    b.push('c', 50);
    expect(b.since(0).map((e) => e.timestamp)).toEqual([100, 101, 102]);
    expect(b.since(101).map((e) => e.item)).toEqual(['c']);
    b.push('d', 200);
    expect(b.since(0).map((e) => e.item)).toEqual(['b', 'c', 'd']);
    b.resize(1);
    expect(b.since(0).map((e) => e.item)).toEqual(['d']);
  });
  it('blanks secrets and formats readable lines', () => {
    const lines: string[] = [];
    const p = createProgramLog({ level: 4, capacity: 10, out: (l) => lines.push(l) });
    p.logger.info({ password: 'hunter2', token: 'abc', nested: { secret: 's3' }, ip: '1.2.3.4' }, 'hello world');
    p.logger.debug('hidden at info');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d INFO hello world /);
    expect(lines[0]).not.toMatch(/hunter2|abc|s3/);
    expect(lines[0]).toContain('ip=1.2.3.4');
    p.setLevel(5);
    p.logger.debug('shown at debug');
    expect(p.read(0, 'en_US').map((e) => e.log).join('\n')).toContain('shown at debug');
  });
});

describe('secrets', () => {
  it('makes distinct random passwords', () => {
    const set = new Set(Array.from({ length: 50 }, () => randomPassword()));
    expect(set.size).toBe(50);
  });
  it('checks TOTP codes with one step of tolerance (RFC 6238 SHA-1 vector)', () => {
    // RFC 6238 appendix B: secret "12345678901234567890", T = 59 s → 94287082 (8 digits); 6 digits → 287082.
    const secret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
    expect(totpFor(secret).generate({ timestamp: 59_000 })).toBe('287082');
    expect(totpCode(secret, 59_000)).toBe('287082');
    for (const t of [1_111_111_109_000, 1_234_567_890_000, 2_000_000_000_000]) expect(totpCode(secret, t)).toBe(totpFor(secret).generate({ timestamp: t }));
    expect(verifyTotp(secret, '287082', 59_000)).toBe(true);
    expect(verifyTotp(secret, '287082', 59_000 + 30_000)).toBe(true);
    expect(verifyTotp(secret, '287082', 59_000 + 90_000)).toBe(false);
    expect(verifyTotp(secret, 'abcdef', 59_000)).toBe(false);
  });
});

describe('interface address rules', () => {
  const iface = {
    name: 'eth0',
    mac: '',
    internal: false,
    ipv4: [
      { address: '192.168.1.2', prefix: 24 },
      { address: '10.0.0.2', prefix: 8 },
    ],
    ipv6: [
      { address: 'fe80::1', prefix: 64, scope: 'link' as const, temporary: false, deprecated: false },
      { address: '2001:db8::aaaa', prefix: 64, scope: 'global' as const, temporary: true, deprecated: false },
      { address: 'fd00::2', prefix: 64, scope: 'ula' as const, temporary: false, deprecated: false },
      { address: '2001:db8::2', prefix: 64, scope: 'global' as const, temporary: false, deprecated: false },
      { address: '2001:db8::3', prefix: 64, scope: 'global' as const, temporary: false, deprecated: true },
    ],
  };
  it('picks by regex, @N, or all; skips temporary, deprecated and link-local IPv6', () => {
    expect(pickAddresses(iface, 'IPv4', '').matches).toEqual(['192.168.1.2', '10.0.0.2']);
    expect(pickAddresses(iface, 'IPv4', '@2').matches).toEqual(['10.0.0.2']);
    expect(pickAddresses(iface, 'IPv4', '@3').matches).toEqual([]);
    expect(pickAddresses(iface, 'IPv4', '^10\\.').matches).toEqual(['10.0.0.2']);
    expect(pickAddresses(iface, 'IPv6', '').candidates).toEqual(['2001:db8::2', 'fd00::2']);
    expect(() => pickAddresses(iface, 'IPv6', '(')).toThrow();
  });
});

describe('event-loop delay', () => {
  it('is the time past the sampling interval, which Node counts in every sample', async () => {
    const h = monitorEventLoopDelay({ resolution: 20 });
    h.enable();
    await new Promise((r) => setTimeout(r, 300));
    h.disable();
    // What the reading relies on: every sample holds most of the interval (Node records the whole
    // time; on a loaded machine one came 15 ms after the one before, never near the delay alone).
    expect(h.min).toBeGreaterThanOrEqual(10e6);
    expect(eventLoopDelayOf(h).max).toBeCloseTo(h.max / 1e6 - 20, 1);
    // An idle loop as Node reports it (~20 ms) reads as the fraction of a millisecond it is.
    expect(eventLoopDelayOf({ min: 20.05e6, mean: 20.3e6, max: 24e6, percentile: (p) => (p === 50 ? 20.2e6 : 21e6) })).toEqual({ mean: 0.3, p50: 0.2, p99: 1, max: 4 });
    // A histogram that holds delays alone (its minimum under the interval) is read as it is.
    expect(eventLoopDelayOf({ min: 1e5, mean: 2e6, max: 5e6, percentile: () => 3e6 })).toEqual({ mean: 2, p50: 3, p99: 3, max: 5 });
  });
});
