/** ClouDNS: `auth-id`/`auth-password` in form POSTs; `status`/`statusDescription` answers; records keyed by id; only ClouDNS's own TTLs. */
import { drop, FAKE_ZONE, fullOf, inZone, Reject, relativeOf, serve, upsert, type FakeCreds, type FakeProvider, type FakeRecord } from '../fakeserver.js';

const TTLS = new Set([60, 300, 900, 1800, 3600, 21600, 43200, 86400, 172800, 259200, 604800, 1209600, 2592000]);

export function fakeCloudns(c: FakeCreds): Promise<FakeProvider> {
  return serve('cloudns', (r, st) => {
    const f = new URLSearchParams(r.body);
    const failed = (statusDescription: string) => ({ status: 200, body: { status: 'Failed', statusDescription } });
    if (r.method !== 'POST' || r.headers['content-type'] !== 'application/x-www-form-urlencoded') return failed('Use POST with a form');
    if (f.get('auth-id') !== c.id || f.get('auth-password') !== c.secret) throw new Reject(200, { status: 'Failed', statusDescription: 'Invalid authentication, incorrect auth-id or auth-password.' }, 'auth');
    const done = (statusDescription: string, data?: object) => ({ status: 200, body: { status: 'Success', statusDescription, ...(data ? { data } : {}) } });
    if (f.get('domain-name') !== FAKE_ZONE) return failed('Missing domain-name');
    const rel = (x: FakeRecord) => (relativeOf(x.name) === '@' ? '' : relativeOf(x.name));
    const ttl = Number(f.get('ttl'));
    switch (r.url.pathname) {
      case '/get-zone-info.json':
        return { status: 200, body: { name: FAKE_ZONE, type: 'master', zone: 'domain', status: '1' } };
      case '/records.json': {
        const recs = [...st.records.values()].filter((x) => inZone(x.name) && (!f.has('host') || rel(x) === f.get('host')) && (!f.get('type') || x.type === f.get('type')));
        // No records: an empty array, not an object.
        if (!recs.length) return { status: 200, body: [] };
        return { status: 200, body: Object.fromEntries(recs.map((x) => [x.id, { id: x.id, type: x.type, host: rel(x), record: x.value, ttl: String(x.ttl), status: 1 }])) };
      }
      case '/add-record.json':
        if (!TTLS.has(ttl)) return failed('Invalid TTL. Choose from the list of the values we support.');
        return done('The record was added successfully.', { id: Number(upsert(st, fullOf(f.get('host') ?? ''), f.get('record-type') ?? '', f.get('record') ?? '', ttl).id) });
      case '/mod-record.json': {
        const old = st.records.get(f.get('record-id') ?? '');
        if (!old) return failed('Invalid record-id param.');
        if (!TTLS.has(ttl)) return failed('Invalid TTL. Choose from the list of the values we support.');
        upsert(st, fullOf(f.get('host') ?? ''), old.type, f.get('record') ?? '', ttl, old.id);
        return done('The record was modified successfully.');
      }
      case '/delete-record.json':
        return drop(st, f.get('record-id') ?? '') ? done('The record was deleted successfully.') : failed('Invalid record-id param.');
    }
    return { status: 404, body: 'not found' };
  });
}
