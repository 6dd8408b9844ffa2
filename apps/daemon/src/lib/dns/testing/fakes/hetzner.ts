/** Hetzner DNS API: `Auth-API-Token`; zones by name, records of a zone, written by id (`name` relative, `@` at the apex). */
import { bodyOf, drop, FAKE_ZONE, fullOf, inZone, Reject, relativeOf, serve, upsert, type FakeCreds, type FakeProvider, type FakeRecord } from '../fakeserver.js';

export function fakeHetzner(c: FakeCreds): Promise<FakeProvider> {
  const zone = { id: 'ZKXm7k2', name: FAKE_ZONE };
  return serve('hetzner', (r, st) => {
    if (r.headers['auth-api-token'] !== c.secret) throw new Reject(401, { message: 'Invalid authentication credentials' }, 'token');
    const view = (x: FakeRecord) => ({ id: x.id, type: x.type, name: relativeOf(x.name), value: x.value, ttl: x.ttl, zone_id: zone.id });
    const notFound = { status: 404, body: { record: {}, error: { message: 'record not found', code: 404 } } };
    if (r.method === 'GET' && r.url.pathname === '/zones') {
      if (r.url.searchParams.get('name') !== zone.name) return { status: 404, body: { zones: [], error: { message: 'zone not found', code: 404 } } };
      return { status: 200, body: { zones: [zone], meta: { pagination: { total_entries: 1 } } } };
    }
    if (r.method === 'GET' && r.url.pathname === '/records') {
      if (r.url.searchParams.get('zone_id') !== zone.id) return notFound;
      return { status: 200, body: { records: [...st.records.values()].filter((x) => inZone(x.name)).map(view) } };
    }
    const m = /^\/records(?:\/([^/]+))?$/.exec(r.url.pathname);
    if (!m) return notFound;
    if (r.method === 'DELETE' && m[1]) return drop(st, m[1]) ? { status: 200, body: '' } : notFound;
    const b = bodyOf<{ zone_id: string; type: string; name: string; value: string; ttl: number }>(r);
    if (b.zone_id !== zone.id) return { status: 422, body: { error: { message: 'invalid zone_id', code: 422 } } };
    if (r.method === 'POST' && !m[1]) return { status: 200, body: { record: view(upsert(st, fullOf(b.name), b.type, b.value, b.ttl)) } };
    if (r.method === 'PUT' && m[1] && st.records.has(m[1])) return { status: 200, body: { record: view(upsert(st, fullOf(b.name), b.type, b.value, b.ttl, m[1])) } };
    return notFound;
  });
}
