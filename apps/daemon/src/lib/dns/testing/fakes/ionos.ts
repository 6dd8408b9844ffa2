/** IONOS DNS API: `X-API-Key` (prefix.secret); zones listed, a zone's records filtered by `recordName`/`recordType` (full names; TXT content answered quoted, taken as sent), added as a list, changed and deleted by id; errors as a list of `{ code, message }`. */
import { bodyOf, drop, FAKE_ZONE, inZone, quoted, Reject, serve, upsert, type FakeCreds, type FakeProvider, type FakeRecord } from '../fakeserver.js';

const ZONE_ID = '11af3414-ebba-11e9-8df5-66fbe8a334b4';

export function fakeIonos(c: FakeCreds): Promise<FakeProvider> {
  return serve('ionos', (r, st) => {
    if (r.headers['x-api-key'] !== c.secret) throw new Reject(401, [{ code: 'UNAUTHORIZED', message: 'The customer is not authorized to do this operation.' }], 'key');
    if (r.method === 'GET' && r.url.pathname === '/zones') return { status: 200, body: [{ id: ZONE_ID, name: FAKE_ZONE, type: 'NATIVE' }] };
    const m = /^\/zones\/([^/]+)(\/records(?:\/([^/]+))?)?$/.exec(r.url.pathname);
    if (!m || m[1] !== ZONE_ID) return { status: 404, body: [{ code: 'NOT_FOUND', message: 'Zone not found' }] };
    const view = (x: FakeRecord) => ({ id: `rec-${x.id}`, name: x.name, rootName: FAKE_ZONE, type: x.type, content: x.type === 'TXT' ? quoted(x.value) : x.value, ttl: x.ttl, prio: 0, disabled: false });
    const id = m[3]?.replace(/^rec-/, '');
    const notFound = { status: 404, body: [{ code: 'RECORD_NOT_FOUND', message: 'Record not found' }] };
    if (r.method === 'GET' && !m[2]) {
      const q = r.url.searchParams;
      const recs = [...st.records.values()].filter((x) => inZone(x.name) && (!q.has('recordName') || x.name === q.get('recordName')) && (!q.has('recordType') || x.type === q.get('recordType')));
      return { status: 200, body: { id: ZONE_ID, name: FAKE_ZONE, type: 'NATIVE', records: recs.map(view) } };
    }
    if (r.method === 'DELETE' && id) return drop(st, id) ? { status: 200, body: '' } : notFound;
    if (r.method === 'POST' && m[2] && !id) {
      const list = bodyOf<Array<{ name: string; type: string; content: string; ttl: number }>>(r);
      if (!Array.isArray(list) || list.some((x) => !inZone(x.name) || x.ttl < 300)) return { status: 400, body: [{ code: 'INVALID_RECORD', message: 'Record is invalid' }] };
      return { status: 201, body: list.map((x) => view(upsert(st, x.name, x.type, x.content, x.ttl))) };
    }
    const old = id ? st.records.get(id) : undefined;
    if (r.method === 'PUT' && old) {
      const b = bodyOf<{ content: string; ttl: number }>(r);
      return { status: 200, body: view(upsert(st, old.name, old.type, b.content, b.ttl, old.id)) };
    }
    return notFound;
  }, { limited: { status: 429, body: [{ code: 'TOO_MANY_REQUESTS', message: 'Too many requests' }] } });
}
