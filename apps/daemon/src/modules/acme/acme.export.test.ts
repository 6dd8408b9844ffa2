/**
 * Export and renewal information, checked by OpenSSL: a PFX it opens (MAC verified) and node:crypto
 * loads, PEM files that are what they say, and the ARI certificate id OpenSSL's own reading gives.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ariCertId, pickInWindow } from './acme.ari.js';
import { renewalTime } from './acme.engine.js';
import { exportFile, pemChain, toPfx } from './acme.export.js';

const ossl = (cwd: string, args: string[]) => execFileSync('openssl', args, { cwd, stdio: 'pipe', timeout: 20_000, encoding: 'utf8' });

describe('export and renewal information', () => {
  let dir = '';
  let chain = '';
  let key = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lucky-acme-export-'));
    // A CA and a leaf it signs, serial with its high bit set (its DER value gains a leading zero).
    ossl(dir, ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=export test CA']);
    ossl(dir, ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=site.example.test']);
    writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=DNS:site.example.test\nauthorityKeyIdentifier=keyid\n');
    ossl(dir, ['x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', '0x87654321', '-out', 'leaf.pem', '-days', '2', '-extfile', 'ext.cnf']);
    chain = readFileSync(join(dir, 'leaf.pem'), 'utf8') + readFileSync(join(dir, 'ca.pem'), 'utf8');
    key = readFileSync(join(dir, 'leaf.key'), 'utf8');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a PFX OpenSSL opens with its password (MAC verified) and node:crypto serves from', () => {
    const pfx = toPfx(chain, key, 'pässword 1', 'site');
    writeFileSync(join(dir, 'site.pfx'), pfx);
    const r = spawnSync('openssl', ['pkcs12', '-in', 'site.pfx', '-passin', 'pass:pässword 1', '-info', '-nodes'], { cwd: dir, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/MAC: sha256/);
    expect(r.stderr).toMatch(/PBES2, PBKDF2, AES-256-CBC/);
    // Both certificates, the key (the same one), and the names Windows shows.
    const certs = pemChain(r.stdout);
    expect(certs.map((c) => c.subject)).toEqual(['CN=site.example.test', 'CN=export test CA']);
    const out = /-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----/.exec(r.stdout)![0];
    expect(createPrivateKey(out).export({ type: 'pkcs8', format: 'pem' })).toBe(createPrivateKey(key).export({ type: 'pkcs8', format: 'pem' }));
    expect(r.stdout).toContain('friendlyName: site');
    expect(r.stdout.match(/localKeyID: [0-9A-F ]+/g)?.length).toBe(2);
    expect(() => createSecureContext({ pfx, passphrase: 'pässword 1' })).not.toThrow();
    // The wrong password: refused by both.
    expect(spawnSync('openssl', ['pkcs12', '-in', 'site.pfx', '-passin', 'pass:wrong', '-nodes'], { cwd: dir }).status).not.toBe(0);
    expect(() => createSecureContext({ pfx, passphrase: 'wrong' })).toThrow();
  });

  it('PEM exports: the chain, the key, and both in one file', () => {
    const full = exportFile('site', chain, key, 'fullchain', '');
    expect(full.name).toBe('site.fullchain.pem');
    expect(pemChain(full.body.toString())).toHaveLength(2);
    expect(full.body.toString()).not.toContain('PRIVATE KEY');
    const k = exportFile('site', chain, key, 'key', '');
    expect(k.body.toString().trim()).toBe(key.trim());
    const bundle = exportFile('site', chain, key, 'bundle', '').body.toString();
    expect(bundle).toContain('PRIVATE KEY');
    expect(pemChain(bundle)).toHaveLength(2);
    expect(exportFile('site', chain, key, 'pfx', 'x').name).toBe('site.pfx');
  });

  it('the ARI certificate id is base64url(key id).base64url(serial) as OpenSSL reads them', () => {
    const text = ossl(dir, ['x509', '-in', 'leaf.pem', '-noout', '-ext', 'authorityKeyIdentifier']);
    const keyId = Buffer.from(/([0-9A-F]{2}(:[0-9A-F]{2})+)/.exec(text)![1]!.replaceAll(':', ''), 'hex');
    // RFC 9773's own example serial: 0x87654321 is "AIdlQyE" (a zero byte in front of the high bit).
    expect(ariCertId(chain)).toBe(`${keyId.toString('base64url')}.AIdlQyE`);
    expect(new X509Certificate(chain).serialNumber).toBe('87654321');
  });

  it('a time in the window, or now when the window is open or past; renewal never before two thirds of the lifetime', () => {
    const now = 1_000_000;
    expect(pickInWindow({ start: now + 100, end: now + 200 }, now, () => 0.5)).toBe(now + 150);
    expect(pickInWindow({ start: now - 100, end: now + 100 }, now, () => 0)).toBe(now);
    expect(pickInWindow({ start: now - 200, end: now - 100 }, now)).toBe(now);
    const day = 86_400_000;
    expect(renewalTime({ notBefore: 0, notAfter: 90 * day }, 30)).toBe(60 * day);
    expect(renewalTime({ notBefore: 0, notAfter: 90 * day }, 10)).toBe(80 * day);
    // A six-day certificate with the default 30 days: two days before it ends, not at once and over again.
    expect(renewalTime({ notBefore: 0, notAfter: 6 * day }, 30)).toBe(4 * day);
  });
});
