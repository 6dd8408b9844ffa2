/**
 * PowerDNS Authoritative HTTP API: `X-API-Key`; a zone read whole with its RRsets (absolute names,
 * TXT quoted), changed with PATCH of `rrsets` (`REPLACE` with the records, `DELETE`), 204 on success;
 * errors as `{ error }`, a zone it does not hold 404 "Could not find domain".
 */
import { bodyOf, drop, FAKE_ZONE, inZone, newId, quoted, Reject, replaceSet, serve, setOf, unquoted, type FakeCreds, type FakeProvider } from '../fakeserver.js';

interface PatchSet {
  name: string;
  type: string;
  ttl?: number;
  changetype: string;
  records?: Array<{ content: string; disabled?: boolean }>;
}

export function fakePowerdns(c: FakeCreds): Promise<FakeProvider> {
  return serve('powerdns', (r, st) => {
    if (r.headers['x-api-key'] !== c.secret) throw new Reject(401, { error: 'Unauthorized' }, 'key');
    const m = /^\/api\/v1\/servers\/([^/]+)\/zones\/([^/]+)$/.exec(r.url.pathname);
    if (!m || m[1] !== (c.id || 'localhost')) return { status: 404, body: { error: 'Not Found' } };
    const zone = decodeURIComponent(m[2]!);
    if (zone !== `${FAKE_ZONE}.`) return { status: 404, body: { error: `Could not find domain '${zone}'` } };
    if (r.method === 'GET') {
      const sets = new Map<string, { name: string; type: string; ttl: number; records: Array<{ content: string; disabled: boolean }> }>();
      for (const x of [...st.records.values()].filter((y) => inZone(y.name))) {
        const key = `${x.name}|${x.type}`;
        const set = sets.get(key) ?? { name: `${x.name}.`, type: x.type, ttl: x.ttl, records: [] };
        set.records.push({ content: x.type === 'TXT' ? quoted(x.value) : x.value, disabled: false });
        sets.set(key, set);
      }
      return { status: 200, body: { id: zone, name: zone, kind: 'Native', url: r.url.pathname, serial: 2024010101, rrsets: [...sets.values()] } };
    }
    if (r.method !== 'PATCH') return { status: 405, body: { error: 'Method not allowed' } };
    if (!String(r.headers['content-type'] ?? '').startsWith('application/json')) return { status: 400, body: { error: 'Content-Type must be application/json' } };
    for (const s of bodyOf<{ rrsets: PatchSet[] }>(r).rrsets) {
      if (!s.name.endsWith('.') || !inZone(s.name.slice(0, -1))) return { status: 422, body: { error: `RRset ${s.name} IN ${s.type}: Name is out of zone` } };
      const name = s.name.slice(0, -1);
      if (s.changetype === 'DELETE') {
        for (const x of st.all(name, s.type)) drop(st, x.id);
        continue;
      }
      if (s.changetype !== 'REPLACE' || !s.records?.length || s.ttl === undefined) return { status: 422, body: { error: `RRset ${s.name} IN ${s.type}: invalid change` } };
      const values = s.records.map((x) => (s.type === 'TXT' ? unquoted(x.content) : x.content));
      if (values.some((v) => v === null)) return { status: 422, body: { error: `Parsing record content (try 'pdnsutil check-zone'): Data field in DNS should start with quote (") at position 0 of '${s.records[0]!.content}'` } };
      replaceSet(st, setOf(st, name, s.type) ?? newId(), name, s.type, values as string[], s.ttl);
    }
    return { status: 204, body: '' };
  }, { limited: { status: 429, body: { error: 'Too Many Requests' } } });
}
