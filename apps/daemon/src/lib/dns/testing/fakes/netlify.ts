/** Netlify DNS: bearer token; zones by id (`example_com`), their records by id (`hostname` the full name), added and deleted, no update; a rate limit says when it resets. */
import { bodyOf, drop, FAKE_ZONE, inZone, Reject, serve, upsert, type FakeCreds, type FakeProvider, type FakeRecord } from '../fakeserver.js';

const ZONE_ID = FAKE_ZONE.replaceAll('.', '_');

export function fakeNetlify(c: FakeCreds): Promise<FakeProvider> {
  return serve('netlify', (r, st) => {
    if (r.headers.authorization !== `Bearer ${c.secret}`) throw new Reject(401, { code: 401, message: 'Access Denied' }, 'token');
    const m = /^\/dns_zones\/([^/]+)(\/dns_records(?:\/([^/]+))?)?$/.exec(r.url.pathname);
    if (!m || m[1] !== ZONE_ID) return { status: 404, body: { code: 404, message: 'Not Found' } };
    if (!m[2]) return { status: 200, body: { id: ZONE_ID, name: FAKE_ZONE, records: [] } };
    const view = (x: FakeRecord) => ({ id: `r${x.id}`, hostname: x.name, type: x.type, value: x.value, ttl: x.ttl, dns_zone_id: ZONE_ID, managed: false });
    const id = m[3]?.replace(/^r/, '');
    if (r.method === 'GET' && !id) return { status: 200, body: [...st.records.values()].filter((x) => inZone(x.name)).map(view) };
    if (r.method === 'DELETE' && id) return drop(st, id) ? { status: 204, body: '' } : { status: 404, body: { code: 404, message: 'Not Found' } };
    if (r.method === 'POST' && !id) {
      const b = bodyOf<{ type: string; hostname: string; value: string; ttl: number }>(r);
      if (!inZone(b.hostname)) return { status: 422, body: { code: 422, message: 'Hostname is not in the zone' } };
      return { status: 201, body: view(upsert(st, b.hostname, b.type, b.value, b.ttl)) };
    }
    return { status: 404, body: { code: 404, message: 'Not Found' } };
  }, { limited: { status: 429, headers: { 'x-ratelimit-limit': '500', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000)) }, body: { code: 429, message: 'Too Many Requests' } } });
}
