/** DNSimple API v2: bearer token, the account id in the path; zone records by id, filtered by `name` and `type`; a rate limit says when it resets (`X-RateLimit-Reset`). */
import { bodyOf, drop, FAKE_ZONE, fullOf, inZone, Reject, relativeOf, serve, upsert, type FakeCreds, type FakeProvider, type FakeRecord } from '../fakeserver.js';

export function fakeDnsimple(c: FakeCreds): Promise<FakeProvider> {
  return serve('dnsimple', (r, st) => {
    if (r.headers.authorization !== `Bearer ${c.secret}`) throw new Reject(401, { message: 'Authentication failed' }, 'token');
    const m = /^\/([^/]+)\/zones\/([^/]+)(\/records(?:\/(\d+))?)?$/.exec(r.url.pathname);
    if (!m || m[1] !== c.id) return { status: 404, body: { message: `Account \`${m?.[1] ?? ''}\` not found` } };
    if (m[2] !== FAKE_ZONE) return { status: 404, body: { message: `Zone \`${m[2]}\` not found` } };
    if (!m[3]) return { status: 200, body: { data: { id: 1, account_id: Number(c.id), name: FAKE_ZONE, reverse: false } } };
    const rel = (name: string) => (relativeOf(name) === '@' ? '' : relativeOf(name));
    const view = (x: FakeRecord) => ({ id: Number(x.id), zone_id: FAKE_ZONE, parent_id: null, name: rel(x.name), content: x.value, ttl: x.ttl, priority: null, type: x.type, regions: ['global'], system_record: false });
    const id = m[4];
    const notFound = { status: 404, body: { message: 'Record not found' } };
    if (r.method === 'GET' && !id) {
      const q = r.url.searchParams;
      const recs = [...st.records.values()].filter((x) => inZone(x.name) && (!q.has('name') || rel(x.name) === q.get('name')) && (!q.has('type') || x.type === q.get('type')));
      return { status: 200, body: { data: recs.map(view), pagination: { current_page: 1, per_page: 100, total_entries: recs.length, total_pages: 1 } } };
    }
    if (r.method === 'DELETE' && id) return drop(st, id) ? { status: 204, body: '' } : notFound;
    const b = bodyOf<{ name?: string; type?: string; content: string; ttl: number }>(r);
    if (r.method === 'POST' && !id) {
      if (!b.type || typeof b.content !== 'string') return { status: 400, body: { message: 'Validation failed', errors: { type: ['is required'] } } };
      return { status: 201, body: { data: view(upsert(st, fullOf(b.name ?? ''), b.type, b.content, b.ttl)) } };
    }
    const old = id ? st.records.get(id) : undefined;
    if (r.method === 'PATCH' && old) return { status: 200, body: { data: view(upsert(st, old.name, old.type, b.content, b.ttl, old.id)) } };
    return notFound;
  }, { limited: { status: 429, headers: { 'x-ratelimit-limit': '2400', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000)) }, body: { message: 'Rate limit exceeded' } } });
}
