/** NS1 v1: `X-NSONE-Key`; zones and records (zone, full name, type) with answers; PUT creates, POST changes. Its rate limit says no wait. */
import { drop, FAKE_ZONE, inZone, newId, Reject, replaceSet, serve, setOf, type FakeCreds, type FakeProvider } from '../fakeserver.js';

export function fakeNs1(c: FakeCreds): Promise<FakeProvider> {
  return serve(
    'ns1',
    (r, st) => {
      if (r.headers['x-nsone-key'] !== c.secret) throw new Reject(401, { message: 'Unauthorized' }, 'key');
      const m = /^\/zones\/([^/]+)(?:\/([^/]+)\/(A|AAAA|TXT))?$/.exec(r.url.pathname);
      if (!m || m[1] !== FAKE_ZONE) return { status: 404, body: { message: 'zone not found' } };
      if (!m[2]) return { status: 200, body: { zone: FAKE_ZONE, ttl: 3600, records: [] } };
      const [, zone, name, type] = m as unknown as [string, string, string, string];
      if (!inZone(name)) return { status: 400, body: { message: 'domain is not in zone' } };
      const recs = st.all(name, type);
      if (r.method === 'GET') {
        if (!recs.length) return { status: 404, body: { message: 'record not found' } };
        return { status: 200, body: { zone, domain: name, type, ttl: recs[0]!.ttl, answers: recs.map((x) => ({ id: x.id, answer: [x.value] })) } };
      }
      if (r.method === 'DELETE') {
        if (!recs.length) return { status: 404, body: { message: 'record not found' } };
        for (const x of recs) drop(st, x.id);
        return { status: 200, body: {} };
      }
      const b = JSON.parse(r.body) as { ttl?: number; answers: Array<{ answer: unknown[] }> };
      if (r.method === 'PUT' && recs.length) return { status: 400, body: { message: 'record already exists' } };
      if (r.method === 'POST' && !recs.length) return { status: 404, body: { message: 'record not found' } };
      replaceSet(st, setOf(st, name, type) ?? newId(), name, type, b.answers.map((a) => String(a.answer[0])), b.ttl ?? recs[0]?.ttl ?? 3600);
      return { status: 200, body: { zone, domain: name, type, ttl: b.ttl } };
    },
    { limited: { status: 429, body: { message: 'rate limit exceeded' } } },
  );
}
