/** Vultr API v2: bearer API key; a domain's records by id (`name` relative, '' at the apex; TXT data quoted). */
import { bodyOf, drop, FAKE_ZONE, fullOf, inZone, quoted, Reject, relativeOf, serve, unquoted, upsert, type FakeCreds, type FakeProvider, type FakeRecord } from '../fakeserver.js';

export function fakeVultr(c: FakeCreds): Promise<FakeProvider> {
  return serve('vultr', (r, st) => {
    if (r.headers.authorization !== `Bearer ${c.secret}`) throw new Reject(401, { error: 'Invalid API token.', status: 401 }, 'token');
    const m = /^\/domains\/([^/]+)(\/records(?:\/([^/]+))?)?$/.exec(r.url.pathname);
    if (!m || m[1] !== FAKE_ZONE) return { status: 404, body: { error: 'domain not found', status: 404 } };
    if (!m[2]) return { status: 200, body: { domain: { domain: FAKE_ZONE, date_created: '2024-01-01T00:00:00+00:00', dns_sec: 'disabled' } } };
    const rel = (name: string) => (relativeOf(name) === '@' ? '' : relativeOf(name));
    const view = (x: FakeRecord) => ({ id: `rec-${x.id}`, type: x.type, name: rel(x.name), data: x.type === 'TXT' ? quoted(x.value) : x.value, priority: -1, ttl: x.ttl });
    const id = m[3]?.replace(/^rec-/, '');
    const notFound = { status: 404, body: { error: 'record not found', status: 404 } };
    if (r.method === 'GET' && !id) {
      const recs = [...st.records.values()].filter((x) => inZone(x.name)).map(view);
      return { status: 200, body: { records: recs, meta: { total: recs.length, links: { next: '', prev: '' } } } };
    }
    if (r.method === 'DELETE' && id) return drop(st, id) ? { status: 204, body: '' } : notFound;
    const b = bodyOf<{ type?: string; name: string; data: string; ttl: number }>(r);
    const old = id ? st.records.get(id) : undefined;
    const type = b.type ?? old?.type ?? '';
    const value = type === 'TXT' ? unquoted(b.data) : b.data;
    if (value === null) return { status: 400, body: { error: 'TXT record data must be enclosed in quotes', status: 400 } };
    if (r.method === 'POST' && !id) return { status: 201, body: { record: view(upsert(st, fullOf(b.name), type, value, b.ttl)) } };
    if (r.method === 'PATCH' && old) {
      upsert(st, fullOf(b.name), type, value, b.ttl, old.id);
      return { status: 204, body: '' };
    }
    return notFound;
  }, { limited: { status: 429, body: { error: 'Rate limit reached - please try your request again later.', status: 429 } } });
}
