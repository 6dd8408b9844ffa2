/** The ACME client's own encodings, checked by OpenSSL (a CSR it accepts and reads the names of) and by node:crypto. */
import { spawnSync } from 'node:child_process';
import { createHash, generateKeyPairSync, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { oid } from '../../lib/tls/der.js';
import { buildCsr, newCertKey } from './acme.csr.js';
import { challengeLine } from './acme.dns.js';
import { accountKey, dnsTxtValue, eabJws, newAccountKeyPem, signJws } from './acme.jws.js';

describe('CSR', () => {
  for (const type of ['ec256', 'rsa2048'] as const) {
    it(`${type}: OpenSSL verifies it and reads the names`, () => {
      const { key } = newCertKey(type);
      const der = buildCsr(['a.example.test', '*.example.test'], key);
      const r = spawnSync('openssl', ['req', '-inform', 'der', '-noout', '-verify', '-text'], { input: der });
      const out = r.stdout.toString() + r.stderr.toString();
      expect(r.status, out).toBe(0);
      expect(out).toMatch(/verify OK/i);
      expect(out).toContain('CN = a.example.test');
      expect(out).toContain('DNS:a.example.test, DNS:*.example.test');
      expect(out).toContain(type === 'ec256' ? 'ecdsa-with-SHA256' : 'sha256WithRSAEncryption');
    });
  }

  it('encodes object identifiers with multi-byte arcs', () => {
    expect(oid('1.2.840.113549.1.9.14').toString('hex')).toBe('06092a864886f70d01090e');
  });
});

describe('JWS', () => {
  it('ES256 signature verifies over protected.payload; the thumbprint follows RFC 7638', () => {
    const acct = accountKey(newAccountKeyPem());
    const jws = signJws(acct, { url: 'https://ca.test/new', nonce: 'n1' }, { a: 1 });
    const header = JSON.parse(Buffer.from(jws.protected, 'base64url').toString());
    expect(header).toMatchObject({ alg: 'ES256', nonce: 'n1', url: 'https://ca.test/new', jwk: { kty: 'EC', crv: 'P-256' } });
    const ok = verify('sha256', Buffer.from(`${jws.protected}.${jws.payload}`), { key: acct.key, dsaEncoding: 'ieee-p1363' }, Buffer.from(jws.signature, 'base64url'));
    expect(ok).toBe(true);
    const j = acct.jwk;
    const expected = createHash('sha256').update(`{"crv":"P-256","kty":"EC","x":"${j.x}","y":"${j.y}"}`).digest('base64url');
    expect(acct.thumbprint).toBe(expected);
    // POST-as-GET: an empty payload, and the kid instead of the key.
    const get = signJws(acct, { url: 'u', nonce: 'n', kid: 'https://ca.test/acct/1' }, null);
    expect(get.payload).toBe('');
    expect(JSON.parse(Buffer.from(get.protected, 'base64url').toString())).not.toHaveProperty('jwk');
  });

  it('RS256 for RSA account keys; EAB is an HMAC over the JWK', () => {
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const acct = accountKey(pem);
    expect(acct.alg).toBe('RS256');
    const eab = eabJws(acct, 'kid-1', Buffer.from('secret-hmac-key').toString('base64url'), 'https://ca.test/new-acct');
    expect(JSON.parse(Buffer.from(eab.payload, 'base64url').toString())).toEqual(acct.jwk);
    expect(JSON.parse(Buffer.from(eab.protected, 'base64url').toString())).toEqual({ alg: 'HS256', kid: 'kid-1', url: 'https://ca.test/new-acct' });
  });

  it('refuses a key that is not P-256 or RSA, and text that is not a key', () => {
    const ed = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(() => accountKey(ed)).toThrow(/account key/);
    expect(() => accountKey('nope')).toThrow(/account key/);
  });

  it('DNS-01 value is base64url SHA-256 of the key authorization', () => {
    // RFC 8555 section 8.4's example shape: 43 characters, no padding.
    expect(dnsTxtValue('token.thumb')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('DNS-01 record line', () => {
  it('splits at the zone a task names as sub:zone (the longest wins), else leaves the guess to the provider', () => {
    expect(challengeLine('www.example.com', ['www.example.com'])).toBe('_acme-challenge.www.example.com');
    expect(challengeLine('a.home.lan.example.com', ['x:example.com', 'home:lan.example.com?proxied=false'])).toBe('_acme-challenge.a.home:lan.example.com');
    expect(challengeLine('lan.example.com', ['home:lan.example.com'])).toBe('_acme-challenge:lan.example.com');
    expect(challengeLine('other.test', ['home:lan.example.com'])).toBe('_acme-challenge.other.test');
  });
});
