/** Scaleway Domains and DNS: `X-Auth-Token`; a zone's records by name and type, changed with PATCH of `changes` (add, set by id, delete by id); TXT data quoted. */
import { bodyOf, drop, FAKE_ZONE, fullOf, inZone, quoted, Reject, relativeOf, serve, unquoted, upsert, type FakeCreds, type FakeProvider, type FakeRecord } from '../fakeserver.js';

interface ScwRec {
  name: string;
  type: string;
  data: string;
  ttl: number;
}
interface Change {
  add?: { records: ScwRec[] };
  set?: { id: string; records: ScwRec[] };
  delete?: { id: string };
}

export function fakeScaleway(c: FakeCreds): Promise<FakeProvider> {
  return serve('scaleway', (r, st) => {
    if (r.headers['x-auth-token'] !== c.secret) throw new Reject(401, { message: 'authentication is denied', method: 'api_key', reason: 'invalid_argument', type: 'denied_authentication' }, 'token');
    const m = /^\/dns-zones\/([^/]+)\/records$/.exec(r.url.pathname);
    if (!m || m[1] !== FAKE_ZONE) return { status: 404, body: { message: 'resource is not found', resource: 'dns_zone', resource_id: m?.[1] ?? '', type: 'not_found' } };
    const rel = (name: string) => (relativeOf(name) === '@' ? '' : relativeOf(name));
    const view = (x: FakeRecord) => ({ id: `3f0c${x.id}`, name: rel(x.name), type: x.type, data: x.type === 'TXT' ? quoted(x.value) : x.value, ttl: x.ttl, priority: 0, comment: null });
    if (r.method === 'GET') {
      const q = r.url.searchParams;
      const recs = [...st.records.values()].filter((x) => inZone(x.name) && (!q.has('name') || rel(x.name) === q.get('name')) && (!q.has('type') || x.type === q.get('type')));
      return { status: 200, body: { records: recs.map(view), total_count: recs.length } };
    }
    if (r.method !== 'PATCH') return { status: 405, body: { message: 'method not allowed', type: 'invalid_request' } };
    const invalid = { status: 400, body: { message: 'invalid argument(s)', details: [{ argument_name: 'data', reason: 'constraint', help_message: 'TXT data must be quoted' }], type: 'invalid_arguments' } };
    const value = (x: ScwRec) => (x.type === 'TXT' ? unquoted(x.data) : x.data);
    for (const ch of bodyOf<{ changes: Change[] }>(r).changes) {
      const recs = ch.add?.records ?? ch.set?.records ?? [];
      if (recs.some((x) => value(x) === null)) return invalid;
      const id = (ch.set?.id ?? ch.delete?.id ?? '').replace(/^3f0c/, '');
      if ((ch.set || ch.delete) && !st.records.has(id)) return { status: 404, body: { message: 'resource is not found', resource: 'dns_record', resource_id: id, type: 'not_found' } };
      if (ch.delete) drop(st, id);
      for (const [i, x] of recs.entries()) upsert(st, fullOf(x.name), x.type, value(x)!, x.ttl, ch.set && i === 0 ? id : undefined);
    }
    return { status: 200, body: { records: [] } };
  }, { limited: { status: 429, body: { message: 'quota exceeded', type: 'too_many_requests' } } });
}
