/** DigitalOcean API v2: bearer token; records of a domain filtered by type and full name, written by id. */
import { bodyOf, drop, FAKE_ZONE, fullOf, Reject, relativeOf, serve, upsert, type FakeCreds, type FakeProvider, type FakeRecord } from '../fakeserver.js';

const NOT_FOUND = { status: 404, body: { id: 'not_found', message: 'The resource you were accessing could not be found.' } };

export function fakeDigitalocean(c: FakeCreds): Promise<FakeProvider> {
  return serve('digitalocean', (r, st) => {
    if (r.headers.authorization !== `Bearer ${c.secret}`) throw new Reject(401, { id: 'Unauthorized', message: 'Unable to authenticate you' }, 'token');
    const m = /^\/domains\/([^/]+)(\/records(?:\/(\d+))?)?$/.exec(r.url.pathname);
    if (!m || m[1] !== FAKE_ZONE) return NOT_FOUND;
    if (!m[2]) return { status: 200, body: { domain: { name: FAKE_ZONE, ttl: 1800 } } };
    const view = (x: FakeRecord) => ({ id: Number(x.id), type: x.type, name: relativeOf(x.name), data: x.value, ttl: x.ttl });
    const id = m[3];
    if (r.method === 'GET' && !id) {
      const q = r.url.searchParams;
      const recs = [...st.records.values()].filter((x) => (!q.get('type') || x.type === q.get('type')) && (!q.get('name') || x.name === q.get('name')));
      return { status: 200, body: { domain_records: recs.map(view), links: {}, meta: { total: recs.length } } };
    }
    if (r.method === 'DELETE' && id) return drop(st, id) ? { status: 204, body: '' } : NOT_FOUND;
    const b = bodyOf<{ type: string; name: string; data: string; ttl: number }>(r);
    if (b.ttl < 30) return { status: 422, body: { id: 'unprocessable_entity', message: 'TTL must be at least 30' } };
    if (r.method === 'POST' && !id) return { status: 201, body: { domain_record: view(upsert(st, fullOf(b.name), b.type, b.data, b.ttl)) } };
    if (r.method === 'PUT' && id && st.records.has(id)) return { status: 200, body: { domain_record: view(upsert(st, fullOf(b.name), b.type, b.data, b.ttl, id)) } };
    return NOT_FOUND;
  });
}
