/** Gcore DNS v2: `APIKey` token; zones and RRsets by full name and type (values in resource_records[].content). */
import { drop, FAKE_ZONE, inZone, newId, Reject, replaceSet, serve, setOf, type FakeCreds, type FakeProvider } from '../fakeserver.js';

export function fakeGcore(c: FakeCreds): Promise<FakeProvider> {
  return serve('gcore', (r, st) => {
    if (r.headers.authorization !== `APIKey ${c.secret}`) throw new Reject(401, { error: 'authentication failed: invalid API key' }, 'key');
    const m = /^\/zones\/([^/]+)(?:\/([^/]+)\/(A|AAAA|TXT))?$/.exec(r.url.pathname);
    if (!m || m[1] !== FAKE_ZONE) return { status: 404, body: { error: 'zone is not found' } };
    if (!m[2]) return { status: 200, body: { id: 4411, name: FAKE_ZONE, records: [] } };
    const [, , name, type] = m as unknown as [string, string, string, string];
    if (!inZone(name)) return { status: 400, body: { error: 'rrset name is out of zone' } };
    const recs = st.all(name, type);
    if (r.method === 'GET') {
      if (!recs.length) return { status: 404, body: { error: 'record is not found' } };
      return { status: 200, body: { name, type, ttl: recs[0]!.ttl, resource_records: recs.map((x) => ({ id: Number(x.id), content: [x.value], enabled: true })) } };
    }
    if (r.method === 'DELETE') {
      if (!recs.length) return { status: 404, body: { error: 'record is not found' } };
      for (const x of recs) drop(st, x.id);
      return { status: 200, body: {} };
    }
    const b = JSON.parse(r.body) as { ttl: number; resource_records: Array<{ content: unknown[] }> };
    if (r.method === 'POST' && recs.length) return { status: 409, body: { error: 'rrset is already exists' } };
    if (r.method === 'PUT' && !recs.length) return { status: 404, body: { error: 'record is not found' } };
    if (b.ttl < 120) return { status: 400, body: { error: 'ttl must be at least 120' } };
    replaceSet(st, setOf(st, name, type) ?? newId(), name, type, b.resource_records.map((x) => String(x.content[0])), b.ttl);
    return { status: 200, body: {} };
  });
}
