/** LuaDNS REST API v1: basic auth (email, token) and `Accept: application/json`; zones listed, their records (absolute names with the dot) by id. */
import { bodyOf, drop, FAKE_ZONE, inZone, Reject, serve, upsert, type FakeCreds, type FakeProvider, type FakeRecord } from '../fakeserver.js';

const ZONE_ID = 4183;

export function fakeLuadns(c: FakeCreds): Promise<FakeProvider> {
  return serve('luadns', (r, st) => {
    if (r.headers.authorization !== `Basic ${Buffer.from(`${c.id}:${c.secret}`).toString('base64')}`) throw new Reject(401, { status: 'Unauthorized', message: 'Invalid email or API key' }, 'basic');
    if (r.headers.accept !== 'application/json') return { status: 406, body: { status: 'Not Acceptable', message: 'Accept: application/json is required' } };
    if (r.method === 'GET' && r.url.pathname === '/zones') return { status: 200, body: [{ id: ZONE_ID, name: FAKE_ZONE, synced: false }] };
    const m = /^\/zones\/(\d+)\/records(?:\/(\d+))?$/.exec(r.url.pathname);
    if (!m || Number(m[1]) !== ZONE_ID) return { status: 404, body: { status: 'Not Found', message: 'Zone not found' } };
    const view = (x: FakeRecord) => ({ id: Number(x.id), name: `${x.name}.`, type: x.type, content: x.value, ttl: x.ttl, zone_id: ZONE_ID });
    const id = m[2];
    const notFound = { status: 404, body: { status: 'Not Found', message: 'Record not found' } };
    if (r.method === 'GET' && !id) return { status: 200, body: [...st.records.values()].filter((x) => inZone(x.name)).map(view) };
    if (r.method === 'DELETE' && id) return drop(st, id) ? { status: 200, body: { id: Number(id) } } : notFound;
    const b = bodyOf<{ name: string; type: string; content: string; ttl: number }>(r);
    if (!b.name.endsWith('.') || !inZone(b.name.slice(0, -1))) return { status: 400, body: { status: 'Bad Request', message: 'Invalid record name' } };
    if (r.method === 'POST' && !id) return { status: 200, body: view(upsert(st, b.name.slice(0, -1), b.type, b.content, b.ttl)) };
    if (r.method === 'PUT' && id && st.records.has(id)) return { status: 200, body: view(upsert(st, b.name.slice(0, -1), b.type, b.content, b.ttl, id)) };
    return notFound;
  }, { limited: { status: 429, body: { status: 'Too Many Requests', message: 'Rate limit exceeded' } } });
}
