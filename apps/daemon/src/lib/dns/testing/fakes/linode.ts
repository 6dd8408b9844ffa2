/** Linode API v4: bearer token; domains filtered with `X-Filter`, records by id (`name` relative, '' at the apex). */
import { bodyOf, drop, FAKE_ZONE, fullOf, inZone, Reject, relativeOf, serve, upsert, type FakeCreds, type FakeProvider, type FakeRecord } from '../fakeserver.js';

export function fakeLinode(c: FakeCreds): Promise<FakeProvider> {
  const domain = { id: 1234567, domain: FAKE_ZONE, type: 'master' };
  const notFound = { status: 404, body: { errors: [{ reason: 'Not found' }] } };
  return serve('linode', (r, st) => {
    if (r.headers.authorization !== `Bearer ${c.secret}`) throw new Reject(401, { errors: [{ reason: 'Invalid Token' }] }, 'token');
    const page = (data: unknown[]) => ({ status: 200, body: { data, page: 1, pages: 1, results: data.length } });
    if (r.method === 'GET' && r.url.pathname === '/domains') {
      const filter = JSON.parse(String(r.headers['x-filter'] ?? '{}')) as { domain?: string };
      return page([domain].filter((d) => !filter.domain || d.domain === filter.domain));
    }
    const m = /^\/domains\/(\d+)\/records(?:\/(\d+))?$/.exec(r.url.pathname);
    if (!m || Number(m[1]) !== domain.id) return notFound;
    const rel = (x: FakeRecord) => (relativeOf(x.name) === '@' ? '' : relativeOf(x.name));
    const view = (x: FakeRecord) => ({ id: Number(x.id), type: x.type, name: rel(x), target: x.value, ttl_sec: x.ttl });
    if (r.method === 'GET' && !m[2]) return page([...st.records.values()].filter((x) => inZone(x.name)).map(view));
    if (r.method === 'DELETE' && m[2]) return drop(st, m[2]) ? { status: 200, body: {} } : notFound;
    const b = bodyOf<{ type: string; name: string; target: string; ttl_sec: number }>(r);
    if (r.method === 'POST' && !m[2]) return { status: 200, body: view(upsert(st, fullOf(b.name), b.type, b.target, b.ttl_sec)) };
    const old = m[2] ? st.records.get(m[2]) : undefined;
    if (r.method === 'PUT' && old) return { status: 200, body: view(upsert(st, old.name, old.type, b.target, b.ttl_sec, old.id)) };
    return notFound;
  });
}
