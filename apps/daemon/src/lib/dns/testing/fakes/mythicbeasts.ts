/** Mythic Beasts DNS API v2: basic auth (key id, secret); records per zone, host (`@` apex) and type: GET, PUT replaces them, DELETE removes them (`?data=` only those). */
import { bodyOf, drop, FAKE_ZONE, fullOf, newId, Reject, replaceSet, serve, setOf, type FakeCreds, type FakeProvider } from '../fakeserver.js';

export function fakeMythicbeasts(c: FakeCreds): Promise<FakeProvider> {
  return serve('mythicbeasts', (r, st) => {
    if (r.headers.authorization !== `Basic ${Buffer.from(`${c.id}:${c.secret}`).toString('base64')}`) throw new Reject(401, { error: 'Authentication failed' }, 'basic');
    const m = /^\/zones\/([^/]+)\/records\/([^/]+)\/(A|AAAA|TXT)$/.exec(r.url.pathname);
    if (!m) return { status: 404, body: { error: 'Not found' } };
    if (m[1] !== FAKE_ZONE) return { status: 404, body: { error: `Zone ${m[1]} not found` } };
    const host = decodeURIComponent(m[2]!);
    const type = m[3]!;
    const name = fullOf(host);
    const recs = st.all(name, type);
    if (r.method === 'GET') return { status: 200, body: { records: recs.map((x) => ({ host, type, ttl: x.ttl, data: x.value })) } };
    if (r.method === 'DELETE') {
      const data = r.url.searchParams.get('data');
      const gone = recs.filter((x) => data === null || x.value === data);
      for (const x of gone) drop(st, x.id);
      return { status: 200, body: { records_removed: gone.length, message: `${gone.length} records removed` } };
    }
    if (r.method !== 'PUT') return { status: 405, body: { error: 'Method not allowed' } };
    const b = bodyOf<{ records: Array<{ host: string; type: string; ttl: number; data: string }> }>(r);
    if (!b.records?.length || b.records.some((x) => x.host !== host || x.type !== type || typeof x.data !== 'string')) return { status: 400, body: { error: 'Records must match the host and type of the URL' } };
    replaceSet(st, setOf(st, name, type) ?? newId(), name, type, b.records.map((x) => x.data), b.records[0]!.ttl);
    return { status: 200, body: { records_added: b.records.length, records_removed: recs.length, message: 'Records replaced' } };
  }, { limited: { status: 429, body: { error: 'Too many requests' } } });
}
