/** Pure parts of the web module: host parsing, matching, ranges, path safety, cache, ring, filters. */
import { describe, expect, it } from 'vitest';
import { ZWebRule } from '@lucky/contracts';
import { BasicAuthGate, compileCidrs, compileUaFilter, inAny, uaAllowed } from './web.access.js';
import { hashPassword } from '../../core/password.js';
import { cacheLifetime, ResponseCache } from './web.cache.js';
import { parseRange } from '../../lib/http/files.js';
import { safeSegments } from './web.files.js';
import { DomainMatcher } from '../../lib/domainmatch.js';
import { parseHost } from './web.match.js';
import { AccessRing } from './web.ring.js';

describe('host parsing and matching', () => {
  it('parses names, ports and IPv6 literals, and refuses junk', () => {
    expect(parseHost('Example.COM:8080')).toEqual({ host: 'example.com', port: '8080' });
    expect(parseHost('example.com.')).toEqual({ host: 'example.com', port: '' });
    expect(parseHost('[::1]:80')).toEqual({ host: '::1', port: '80' });
    for (const bad of ['', 'a b', 'a:b:c', 'x:', '[::1', '[zz]:1', 'a..b', 'exa/mple', 'a:99999999']) expect(parseHost(bad), bad).toBeNull();
  });
  it('prefers exact names, then the longest wildcard', () => {
    const m = new DomainMatcher<string>();
    m.add('*.example.com', 'wild');
    m.add('a.example.com', 'exact');
    m.add('*.x.example.com', 'deep');
    expect(m.match('a.example.com')).toBe('exact');
    expect(m.match('b.example.com')).toBe('wild');
    expect(m.match('q.x.example.com')).toBe('deep');
    expect(m.match('example.com')).toBeUndefined();
    expect(m.match('badexample.com')).toBeUndefined();
  });
});

describe('file server helpers', () => {
  it('refuses path segments that leave the root', () => {
    expect(safeSegments('/a/b/c.txt')).toEqual(['a', 'b', 'c.txt']);
    expect(safeSegments('/a%20b/')).toEqual(['a b']);
    expect(safeSegments('/.well-known/acme-challenge/t')).toEqual(['.well-known', 'acme-challenge', 't']);
    for (const bad of ['/.env', '/a/.git/config', '/%2egit/HEAD', '/../x', '/a/../../x', '/%2e%2e/x', '/%2E%2E', '/a%2f..%2fb', '/..%5cx', '/%00', '/%zz']) expect(safeSegments(bad), bad).toBeNull();
  });
  it('parses single byte ranges', () => {
    expect(parseRange('bytes=0-9', 100)).toEqual({ start: 0, end: 9 });
    expect(parseRange('bytes=90-', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=-10', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=50-500', 100)).toEqual({ start: 50, end: 99 });
    expect(parseRange('bytes=100-', 100)).toBe('bad');
    expect(parseRange('bytes=5-1', 100)).toBe('bad');
    expect(parseRange('items=1-2', 100)).toBe('bad');
    expect(parseRange('bytes=0-1,5-6', 100)).toBeNull();
  });
});

describe('cache', () => {
  it('stays within its byte budget, evicting the least recently used', () => {
    const c = new ResponseCache(3 * 1280, 1024, 60_000);
    const e = (n: number) => ({ status: 200, headers: {}, body: Buffer.alloc(n), expires: Date.now() + 60_000 });
    c.set('a', e(1000));
    c.set('b', e(1000));
    c.set('c', e(1000));
    c.get('a');
    c.set('d', e(1000));
    expect(c.get('b')).toBeUndefined();
    expect(c.get('a')).toBeDefined();
    expect(c.size).toBeLessThanOrEqual(3 * 1280);
    c.set('big', e(5000));
    expect(c.get('big')).toBeUndefined();
  });
  it('keeps only what the backend allows', () => {
    expect(cacheLifetime(200, {}, 1000)).toBe(1000);
    expect(cacheLifetime(200, { 'cache-control': 'max-age=5' }, 1000)).toBe(5000);
    expect(cacheLifetime(200, { 'cache-control': 'private, max-age=5' }, 1000)).toBe(0);
    expect(cacheLifetime(200, { 'set-cookie': ['a=1'] }, 1000)).toBe(0);
    expect(cacheLifetime(404, {}, 1000)).toBe(0);
    expect(cacheLifetime(200, { vary: 'Accept-Encoding' }, 1000)).toBe(1000);
    expect(cacheLifetime(200, { vary: 'Accept-Encoding, Cookie' }, 1000)).toBe(0);
    expect(cacheLifetime(200, { vary: '*' }, 1000)).toBe(0);
  });
});

describe('access log ring', () => {
  it('keeps the latest entries and resizes', () => {
    const r = new AccessRing<number>(3);
    for (let i = 1; i <= 5; i++) r.push(i);
    expect(r.latest(10)).toEqual([3, 4, 5]);
    expect(r.latest(2)).toEqual([4, 5]);
    r.resize(2);
    expect(r.latest(10)).toEqual([4, 5]);
    r.resize(0);
    r.push(9);
    expect(r.latest(10)).toEqual([]);
  });

  it('hands out the entry a full ring drops next, for reuse', () => {
    const r = new AccessRing<{ n: number }>(2);
    expect(r.evictee()).toBeUndefined();
    r.push({ n: 1 });
    r.push({ n: 2 });
    const e = r.evictee()!;
    expect(e.n).toBe(1);
    e.n = 3;
    r.push(e);
    expect(r.latest(10).map((x) => x.n)).toEqual([2, 3]);
    expect(r.evictee()!.n).toBe(2);
  });
});

describe('filters and defaults', () => {
  it('matches addresses and user agents', () => {
    const cidrs = compileCidrs(['10.0.0.0/8', '::1']);
    expect(inAny('10.2.3.4', cidrs)).toBe(true);
    expect(inAny('::ffff:10.2.3.4', cidrs)).toBe(true);
    expect(inAny('11.0.0.1', cidrs)).toBe(false);
    const bl = compileUaFilter({ mode: 'blacklist', list: ['Bot'] })!;
    expect(uaAllowed('SomeBOT/1', bl)).toBe(false);
    expect(uaAllowed(undefined, bl)).toBe(true);
  });
  it('defaults CORS methods to the spec list and the access log within bounds', () => {
    const r = ZWebRule.parse({ name: 'x', port: 80 });
    expect(r.cors.methods).toEqual(['POST', 'GET', 'PUT', 'OPTIONS', 'DELETE']);
    expect(r.clientIpHeaders).toEqual(['X-Forwarded-For', 'X-Real-IP']);
    expect(ZWebRule.safeParse({ name: 'x', port: 80, accessLog: { capacity: 0 } }).success).toBe(true);
    expect(ZWebRule.safeParse({ name: 'x', port: 80, accessLog: { capacity: 102400 } }).success).toBe(true);
    expect(ZWebRule.safeParse({ name: 'x', port: 80, accessLog: { capacity: -1 } }).success).toBe(false);
  });
});

describe('basic auth checks under a flood of guesses', () => {
  const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

  it('checks at most two guesses of one address at once, and another client at once meanwhile', async () => {
    const gate = new BasicAuthGate({ enable: true, realm: 'x', users: [{ user: 'alice', password: await hashPassword('wonderland') }] });
    const flood = Array.from({ length: 10 }, (_, i) => gate.check(basic('alice', `guess-${i}`), '192.0.2.66'));
    // Two are being checked; the other eight are refused unchecked.
    expect(flood.filter((r) => r instanceof Promise)).toHaveLength(2);
    expect(flood.filter((r) => r === false)).toHaveLength(8);
    const legit = gate.check(basic('alice', 'wonderland'), '192.0.2.10');
    expect(legit).toBeInstanceOf(Promise);
    expect(await legit).toBe(true);
    expect(await Promise.all(flood)).toEqual(Array(10).fill(false));
    // Done: the flooding address may have its next guess checked again.
    expect(gate.check(basic('alice', 'guess-x'), '192.0.2.66')).toBeInstanceOf(Promise);
  });
});
