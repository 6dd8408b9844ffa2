/** Bunny DNS (api.bunny.net): `AccessKey` header; zones by search, records with numeric types (A 0, AAAA 1, TXT 3), added with PUT, changed with POST. */
import { bodyOf, drop, FAKE_ZONE, fullOf, inZone, Reject, relativeOf, serve, upsert, type FakeCreds, type FakeProvider, type FakeRecord } from '../fakeserver.js';

const ZONE_ID = 7001;
const TYPES: Record<number, string> = { 0: 'A', 1: 'AAAA', 3: 'TXT' };
const CODES: Record<string, number> = { A: 0, AAAA: 1, TXT: 3 };

export function fakeBunny(c: FakeCreds): Promise<FakeProvider> {
  return serve('bunny', (r, st) => {
    if (r.headers.accesskey !== c.secret) throw new Reject(401, { HttpCode: 401, Message: 'Authorization has been denied for this request.' }, 'key');
    const notFound = { status: 404, body: { ErrorKey: 'dnszone.not_found', Field: 'Id', Message: 'The requested DNS zone was not found' } };
    const view = (x: FakeRecord) => ({ Id: Number(x.id), Type: CODES[x.type], Name: relativeOf(x.name) === '@' ? '' : relativeOf(x.name), Value: x.value, Ttl: x.ttl, Disabled: false });
    if (r.method === 'GET' && r.url.pathname === '/dnszone') {
      const hit = FAKE_ZONE.includes(r.url.searchParams.get('search') ?? '');
      return { status: 200, body: { Items: hit ? [{ Id: ZONE_ID, Domain: FAKE_ZONE }] : [], CurrentPage: 1, TotalItems: hit ? 1 : 0, HasMoreItems: false } };
    }
    const m = /^\/dnszone\/(\d+)(\/records(?:\/(\d+))?)?$/.exec(r.url.pathname);
    if (!m || Number(m[1]) !== ZONE_ID) return notFound;
    if (!m[2] && r.method === 'GET') return { status: 200, body: { Id: ZONE_ID, Domain: FAKE_ZONE, Records: [...st.records.values()].filter((x) => inZone(x.name)).map(view) } };
    const id = m[3];
    const noRecord = { status: 404, body: { ErrorKey: 'dnszone.record.not_found', Field: 'Id', Message: 'The requested DNS record was not found' } };
    if (r.method === 'DELETE' && id) return drop(st, id) ? { status: 204, body: '' } : noRecord;
    const b = bodyOf<{ Type: number; Name: string; Value: string; Ttl: number }>(r);
    const type = TYPES[b.Type];
    if (!type || typeof b.Value !== 'string') return { status: 400, body: { ErrorKey: 'validation_error', Field: 'Type', Message: 'Invalid record type or value' } };
    if (r.method === 'PUT' && m[2] && !id) return { status: 201, body: view(upsert(st, fullOf(b.Name), type, b.Value, b.Ttl)) };
    if (r.method === 'POST' && id && st.records.has(id)) {
      upsert(st, fullOf(b.Name), type, b.Value, b.Ttl, id);
      return { status: 204, body: '' };
    }
    return noRecord;
  }, { limited: { status: 429, body: { HttpCode: 429, Message: 'Too many requests' } } });
}
