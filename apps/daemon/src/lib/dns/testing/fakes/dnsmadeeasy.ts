/**
 * DNS Made Easy API v2.0: `x-dnsme-apiKey`, `x-dnsme-requestDate` (within 30 s) and `x-dnsme-hmac`
 * (HMAC-SHA1 of the date with the secret, hex), checked here; managed domains by name, records by id
 * (`name` relative, '' at the apex; TXT values quoted); errors `{ error: [..] }`, its rate limit a 400.
 */
import { createHmac } from 'node:crypto';
import { bodyOf, drop, FAKE_ZONE, fullOf, inZone, quoted, Reject, relativeOf, safeEq, serve, unquoted, upsert, type FakeCreds, type FakeProvider, type FakeRecord } from '../fakeserver.js';

const ZONE_ID = 1119443;

export function fakeDnsmadeeasy(c: FakeCreds): Promise<FakeProvider> {
  return serve('dnsmadeeasy', (r, st) => {
    const date = String(r.headers['x-dnsme-requestdate'] ?? '');
    const hmac = createHmac('sha1', c.secret).update(date).digest('hex');
    if (r.headers['x-dnsme-apikey'] !== c.id || !safeEq(String(r.headers['x-dnsme-hmac'] ?? ''), hmac)) throw new Reject(403, { error: ['API key and secret key do not match'] }, 'hmac');
    if (!/GMT$/.test(date) || Math.abs(Date.now() - Date.parse(date)) > 30_000) throw new Reject(403, { error: ['Request date is out of range'] }, 'date');
    if (r.url.pathname === '/dns/managed/name') {
      return r.url.searchParams.get('domainname') === FAKE_ZONE ? { status: 200, body: { id: ZONE_ID, name: FAKE_ZONE } } : { status: 404, body: { error: ['Domain not found'] } };
    }
    const m = /^\/dns\/managed\/(\d+)\/records(?:\/(\d+))?$/.exec(r.url.pathname);
    if (!m || Number(m[1]) !== ZONE_ID) return { status: 404, body: { error: ['Not found'] } };
    const rel = (name: string) => (relativeOf(name) === '@' ? '' : relativeOf(name));
    const view = (x: FakeRecord) => ({ id: Number(x.id), name: rel(x.name), type: x.type, value: x.type === 'TXT' ? quoted(x.value) : x.value, ttl: x.ttl, gtdLocation: 'DEFAULT', sourceId: ZONE_ID });
    const id = m[2];
    if (r.method === 'GET' && !id) {
      const q = r.url.searchParams;
      const recs = [...st.records.values()].filter((x) => inZone(x.name) && (!q.has('recordName') || rel(x.name) === q.get('recordName')) && (!q.has('type') || x.type === q.get('type')));
      return { status: 200, body: { totalRecords: recs.length, totalPages: 1, page: 0, data: recs.map(view) } };
    }
    if (r.method === 'DELETE' && id) return drop(st, id) ? { status: 200, body: '' } : { status: 404, body: { error: ['Record not found'] } };
    const b = bodyOf<{ name: string; type: string; value: string; ttl: number; gtdLocation?: string }>(r);
    const value = b.type === 'TXT' ? unquoted(b.value) : b.value;
    if (value === null || b.gtdLocation !== 'DEFAULT') return { status: 400, body: { error: ['Record value or gtdLocation is invalid'] } };
    if (r.method === 'POST' && !id) return { status: 201, body: view(upsert(st, fullOf(b.name), b.type, value, b.ttl)) };
    if (r.method === 'PUT' && id && st.records.has(id)) {
      upsert(st, fullOf(b.name), b.type, value, b.ttl, id);
      return { status: 200, body: '' };
    }
    return { status: 404, body: { error: ['Record not found'] } };
  }, { limited: { status: 400, body: { error: ['Rate limit exceeded'] } } });
}
