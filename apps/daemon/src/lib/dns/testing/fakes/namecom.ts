/** Name.com API v4: basic auth (user name, token); a domain's records with `fqdn`, written by id. */
import { bodyOf, drop, FAKE_ZONE, fullOf, inZone, Reject, relativeOf, serve, upsert, type FakeCreds, type FakeProvider, type FakeRecord } from '../fakeserver.js';

export function fakeNamecom(c: FakeCreds): Promise<FakeProvider> {
  const notFound = { status: 404, body: { message: 'Not Found', details: 'Domain not found in this account' } };
  return serve('namecom', (r, st) => {
    if (r.headers.authorization !== `Basic ${Buffer.from(`${c.id}:${c.secret}`).toString('base64')}`) throw new Reject(401, { message: 'Unauthenticated' }, 'basic auth');
    const m = /^\/domains\/([^/]+)(\/records(?:\/(\d+))?)?$/.exec(r.url.pathname);
    if (!m || m[1] !== FAKE_ZONE) return notFound;
    if (!m[2]) return { status: 200, body: { domainName: FAKE_ZONE, locked: true } };
    const host = (x: FakeRecord) => (relativeOf(x.name) === '@' ? '' : relativeOf(x.name));
    const view = (x: FakeRecord) => ({ id: Number(x.id), domainName: FAKE_ZONE, ...(host(x) ? { host: host(x) } : {}), fqdn: `${x.name}.`, type: x.type, answer: x.value, ttl: x.ttl });
    if (r.method === 'GET' && !m[3]) return { status: 200, body: { records: [...st.records.values()].filter((x) => inZone(x.name)).map(view) } };
    if (r.method === 'DELETE' && m[3]) return drop(st, m[3]) ? { status: 200, body: {} } : { status: 404, body: { message: 'Not Found', details: 'record not found' } };
    const b = bodyOf<{ host?: string; type: string; answer: string; ttl: number }>(r);
    if (b.ttl < 300) return { status: 400, body: { message: 'Invalid Argument', details: 'TTL must be at least 300' } };
    if (r.method === 'POST' && !m[3]) return { status: 200, body: view(upsert(st, fullOf(b.host ?? ''), b.type, b.answer, b.ttl)) };
    if (r.method === 'PUT' && m[3] && st.records.has(m[3])) return { status: 200, body: view(upsert(st, fullOf(b.host ?? ''), b.type, b.answer, b.ttl, m[3])) };
    return { status: 404, body: { message: 'Not Found', details: 'record not found' } };
  });
}
