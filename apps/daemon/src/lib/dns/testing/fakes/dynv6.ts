/**
 * dynv6 REST API v2: `Authorization: Bearer` with the HTTP token; the account's zones (each apex's
 * A/AAAA are the zone's `ipv4address`/`ipv6prefix`), their records by id (`name` relative, '' at the apex).
 */
import { bodyOf, drop, Reject, serve, upsert, type FakeCreds, type FakeProvider, type FakeRecord } from '../fakeserver.js';

/** The account's zones: a dynv6 name and a domain of one's own. */
const ZONES = [
  { id: 101, name: 'myhome.dynv6.net' },
  { id: 102, name: 'example.com' },
];
const NOT_FOUND = { status: 404, body: { error: { name: 'NotFound', message: 'record not found' } } };

export function fakeDynv6(c: FakeCreds): Promise<FakeProvider> {
  return serve('dynv6', (r, st) => {
    if (r.headers.authorization !== `Bearer ${c.secret}`) throw new Reject(401, { error: { name: 'Unauthorized', message: 'invalid authentication token' } }, 'token');
    const apex = (zone: string, type: string) => st.find(zone, type);
    const zoneView = (z: (typeof ZONES)[number]) => ({ ...z, ipv4address: apex(z.name, 'A')?.value ?? '', ipv6prefix: apex(z.name, 'AAAA')?.value ?? '', createdAt: '2024-01-01T00:00:00Z' });
    if (r.method === 'GET' && r.url.pathname === '/zones') return { status: 200, body: ZONES.map(zoneView) };
    const m = /^\/zones\/(\d+)(\/records(?:\/(\d+))?)?$/.exec(r.url.pathname);
    const zone = ZONES.find((z) => String(z.id) === m?.[1]);
    if (!m || !zone) return { status: 404, body: { error: { name: 'NotFound', message: 'zone not found' } } };
    const full = (name: string) => (name ? `${name}.${zone.name}` : zone.name);
    // Records of this zone: below its apex and not in a longer zone; the apex's TXT too.
    const inThis = (x: FakeRecord) => {
      const longer = ZONES.some((z) => z.name.length > zone.name.length && (x.name === z.name || x.name.endsWith(`.${z.name}`)));
      return !longer && (x.name.endsWith(`.${zone.name}`) || (x.name === zone.name && x.type === 'TXT'));
    };
    const view = (x: FakeRecord) => ({ id: Number(x.id), zoneID: zone.id, type: x.type, name: x.name === zone.name ? '' : x.name.slice(0, -zone.name.length - 1), data: x.value });
    if (!m[2]) {
      if (r.method === 'GET') return { status: 200, body: zoneView(zone) };
      if (r.method !== 'PATCH') return { status: 405, body: { error: { name: 'MethodNotAllowed', message: 'method not allowed' } } };
      const b = bodyOf<{ ipv4address?: string; ipv6prefix?: string }>(r);
      for (const [field, type] of [['ipv4address', 'A'], ['ipv6prefix', 'AAAA']] as const) {
        const v = b[field];
        if (v === undefined) continue;
        const old = apex(zone.name, type);
        if (v === '') {
          if (old) drop(st, old.id);
        } else upsert(st, zone.name, type, v, 60, old?.id);
      }
      return { status: 200, body: '' };
    }
    const id = m[3];
    if (r.method === 'GET' && !id) return { status: 200, body: [...st.records.values()].filter(inThis).map(view) };
    if (id && !(st.records.has(id) && inThis(st.records.get(id)!))) return NOT_FOUND;
    if (r.method === 'DELETE' && id) return drop(st, id) ? { status: 204, body: '' } : NOT_FOUND;
    const b = bodyOf<{ name: string; type: string; data: string }>(r);
    if (!['A', 'AAAA', 'TXT'].includes(b.type) || typeof b.data !== 'string') return { status: 422, body: { error: { name: 'ValidationError', message: 'validation failed', fields: [{ name: 'type', message: 'invalid' }] } } };
    if (r.method === 'POST' && !id) return { status: 200, body: view(upsert(st, full(b.name), b.type, b.data, 60)) };
    if (r.method === 'PATCH' && id) return { status: 200, body: view(upsert(st, full(b.name), b.type, b.data, 60, id)) };
    return NOT_FOUND;
  }, { limited: { status: 429, body: { error: { name: 'TooManyRequests', message: 'too many requests' } } } });
}
