/**
 * OCSP stapling's fetcher against a real responder (`openssl ocsp` on loopback, testing/ocsp.ts):
 * what it asks and of whom, what it staples, refreshes, retries, the rule log lines, expiry and
 * the end of a watch. Timings are shortened through OCSP_TIMING and the clock is the test's; every
 * wait is bounded and nothing asserts on timing. Needs `npm run build` (the edge addon does the
 * OpenSSL part).
 */
import { X509Certificate } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { renderMsg, type Msg } from '@lucky/contracts';
import type { TlsCert } from '../../lib/tls/pem.js';
import { startOcspPki, type OcspLeaf, type OcspPki } from './testing/ocsp.js';
import { waitFor } from './testing/runner.js';
import { edgeAddon } from './web.edge.js';
import { OCSP_TIMING, OcspStapling, responderOf, staplingOf } from './web.ocsp.js';

const DEFAULTS = { ...OCSP_TIMING };
const tlsCert = (l: OcspLeaf, names: string[]): TlsCert => ({ cert: l.cert, key: l.key, names, notAfter: Date.now() + 86_400_000 });
const asked = (pki: OcspPki, l: OcspLeaf) => pki.requests.filter((r) => r.includes(l.serial)).length;

describe('OCSP stapling', () => {
  let pki: OcspPki;
  let offset = 0;
  const stapling = () => new OcspStapling({ addon: async () => edgeAddon(), now: () => Date.now() + offset });

  beforeAll(async () => {
    if (!edgeAddon()) throw new Error('OCSP stapling needs `npm run build` (the edge addon)');
    pki = await startOcspPki();
  });
  afterAll(() => pki?.close());
  afterEach(() => {
    Object.assign(OCSP_TIMING, DEFAULTS);
    offset = 0;
    pki.failing = false;
  });

  it('finds the responder a certificate names, and only with its issuer in the chain', () => {
    expect(responderOf(new X509Certificate(pki.good.leafPem))).toBe(pki.url);
    expect(responderOf(new X509Certificate(pki.plain.leafPem))).toBeNull();
    expect(staplingOf(tlsCert(pki.good, ['good.test']))?.url).toBe(pki.url);
    expect(staplingOf(tlsCert(pki.plain, ['plain.test']))).toBeNull();
    // The leaf alone: no issuer to ask about it with.
    expect(staplingOf({ ...tlsCert(pki.good, ['good.test']), cert: pki.good.leafPem })).toBeNull();
    // A second certificate that did not issue it is not its issuer.
    expect(staplingOf({ ...tlsCert(pki.good, ['good.test']), cert: pki.good.leafPem + pki.plain.leafPem })).toBeNull();
  });

  it('staples a good answer, never a revoked one, and asks nothing for a certificate without a responder', async () => {
    const s = stapling();
    const stapled = new Map<number, Buffer | null>();
    const notes: Msg[] = [];
    const before = pki.requests.length;
    const w = s.watch([tlsCert(pki.good, ['good.test']), tlsCert(pki.revoked, ['revoked.test']), tlsCert(pki.plain, ['plain.test'])], {
      staple: (i, der) => stapled.set(i, der),
      note: (l) => notes.push(l),
    });
    expect(s.size).toBe(2);
    await waitFor(() => !!stapled.get(0) && notes.length > 0);
    expect(pki.verdict(stapled.get(0)!, pki.good)).toBe('good');
    expect(w.forCertificate(new X509Certificate(pki.good.leafPem).raw)).toEqual(stapled.get(0));
    expect(stapled.get(1) ?? null).toBeNull();
    expect(w.forCertificate(new X509Certificate(pki.revoked.leafPem).raw)).toBeUndefined();
    expect(notes.map((n) => renderMsg('en_US', n))).toEqual([`OCSP: ${pki.url} answers that certificate #2 (revoked.test) is revoked; its status is not stapled`]);
    expect(renderMsg('zh_CN', notes[0]!)).toContain('已被吊销');
    expect(stapled.has(2)).toBe(false);
    expect(asked(pki, pki.plain)).toBe(0);
    expect(pki.requests.length - before).toBe(2);
    // Replayed for a new table of the edge.
    stapled.clear();
    w.replay();
    expect(pki.verdict(stapled.get(0)!, pki.good)).toBe('good');
    // The rule saved: its new watch staples at once and does not repeat the revoked line; another rule hears it.
    const certs = [tlsCert(pki.good, ['good.test']), tlsCert(pki.revoked, ['revoked.test'])];
    const again = new Map<number, Buffer | null>();
    const saved = s.watch(certs, { staple: (i, der) => again.set(i, der), note: (l) => notes.push(l) }, w);
    w.close();
    expect(pki.verdict(again.get(0)!, pki.good)).toBe('good');
    expect(notes).toHaveLength(1);
    const other = s.watch(certs, { note: (l) => notes.push(l) });
    expect(notes).toHaveLength(2);
    expect(pki.requests.length - before).toBe(2);
    saved.close();
    other.close();
    expect(s.size).toBe(0);
    s.close();
  });

  it('asks one responder once for a certificate several rules serve, and forgets it with the last one', async () => {
    const s = stapling();
    const a = new Map<number, Buffer | null>();
    const b = new Map<number, Buffer | null>();
    const before = asked(pki, pki.good);
    const wa = s.watch([tlsCert(pki.good, ['good.test'])], { staple: (i, d) => a.set(i, d), note: () => undefined });
    await waitFor(() => !!a.get(0));
    // The second watch gets the answer at once, without a request.
    const wb = s.watch([tlsCert(pki.plain, ['plain.test']), tlsCert(pki.good, ['good.test'])], { staple: (i, d) => b.set(i, d), note: () => undefined });
    expect(b.get(1)).toEqual(a.get(0));
    expect(asked(pki, pki.good) - before).toBe(1);
    wa.close();
    expect(s.size).toBe(1);
    wb.close();
    expect(s.size).toBe(0);
    s.close();
  });

  it('refreshes, keeps a stapled answer through failures until it expires, says when the responder keeps failing, and recovers', async () => {
    Object.assign(OCSP_TIMING, { minRefreshMs: 100, maxRefreshMs: 200, firstRetryMs: 50, maxRetryMs: 200, warnAfterMs: 300 });
    const s = stapling();
    const stapled: Array<Buffer | null> = [];
    const notes: Msg[] = [];
    const w = s.watch([tlsCert(pki.good, ['good.test'])], { staple: (_i, d) => stapled.push(d), note: (l) => notes.push(l) });
    // Asked again within maxRefreshMs of each answer.
    await waitFor(() => stapled.filter(Boolean).length >= 2);
    pki.failing = true;
    const failingFrom = pki.requests.length;
    await waitFor(() => notes.length > 0);
    const line = renderMsg('en_US', notes[0]!);
    expect(line).toMatch(new RegExp(`^OCSP: no good answer from ${pki.url.replace(/[.?]/g, '\\$&')} for certificate #1 \\(good.test\\) since .+Z \\(HTTP 503\\); a stapled answer is kept until it expires$`));
    expect(notes).toHaveLength(1);
    // Retried meanwhile, and the answer from before still stapled (its nextUpdate is minutes away).
    expect(pki.requests.length - failingFrom).toBeGreaterThanOrEqual(2);
    expect(stapled.at(-1)).not.toBeNull();
    // Past its nextUpdate (five minutes): dropped.
    offset = 6 * 60_000;
    await waitFor(() => stapled.at(-1) === null);
    expect(w.forCertificate(new X509Certificate(pki.good.leafPem).raw)).toBeUndefined();
    pki.failing = false;
    await waitFor(() => !!stapled.at(-1));
    expect(pki.verdict(stapled.at(-1)!, pki.good)).toBe('good');
    w.close();
    const after = pki.requests.length;
    await new Promise((r) => setTimeout(r, 400));
    expect(pki.requests.length).toBe(after);
    s.close();
  });

  it('does not staple an answer that is not for the certificate', async () => {
    Object.assign(OCSP_TIMING, { firstRetryMs: 60_000, warnAfterMs: 0 });
    const stapled: Array<Buffer | null> = [];
    const notes: Msg[] = [];
    // The revoked leaf's chain, but asked and checked as if it were good.test's: the responder answers for revoked.test.
    const addon = edgeAddon()!;
    const swapped = new OcspStapling({
      addon: async () => ({
        ocspRequest: (_c, i) => addon.ocspRequest(pki.revoked.leafPem, i),
        ocspCheck: (der, c, i) => addon.ocspCheck(der, c, i),
      }),
    });
    const w = swapped.watch([tlsCert(pki.good, ['good.test'])], { staple: (_i, d) => stapled.push(d), note: (l) => notes.push(l) });
    await waitFor(() => notes.length > 0);
    expect(renderMsg('en_US', notes[0]!)).toContain('(not a valid answer (signature, certificate or validity))');
    expect(stapled).toEqual([]);
    w.close();
    swapped.close();
  });
});
