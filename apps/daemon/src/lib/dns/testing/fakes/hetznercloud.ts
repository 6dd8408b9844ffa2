/**
 * Hetzner Cloud DNS (api.hetzner.cloud): bearer token; zones by name, RRsets by name (`@` at the apex)
 * and type, records `{ value }` (TXT quoted); created, `set_records`, deleted, each answering an action;
 * errors `{ error: { code, message } }`; a rate limit says when it resets (`RateLimit-Reset`).
 */
import { bodyOf, drop, FAKE_ZONE, fullOf, inZone, newId, quoted, Reject, replaceSet, serve, setOf, unquoted, type FakeCreds, type FakeProvider } from '../fakeserver.js';

export function fakeHetznercloud(c: FakeCreds): Promise<FakeProvider> {
  return serve('hetznercloud', (r, st) => {
    const fail = (status: number, code: string, message: string) => ({ status, body: { error: { code, message, details: {} } } });
    if (r.headers.authorization !== `Bearer ${c.secret}`) throw new Reject(401, { error: { code: 'unauthorized', message: 'unable to authenticate', details: {} } }, 'token');
    const m = /^\/zones\/([^/]+)(?:\/rrsets(?:\/([^/]+)\/(A|AAAA|TXT)(\/actions\/set_records)?)?)?$/.exec(r.url.pathname);
    if (!m || m[1] !== FAKE_ZONE) return fail(404, 'not_found', 'zone not found');
    const action = (command: string) => ({ status: 201, body: { action: { id: Number(newId()), command, status: 'running', progress: 0 } } });
    const values = (records: Array<{ value: string }>, type: string) => records.map((x) => (type === 'TXT' ? unquoted(x.value) : x.value));
    const invalid = fail(422, 'invalid_input', 'invalid input in field \'records\': TXT values must be quoted');
    if (!r.url.pathname.includes('/rrsets')) return { status: 200, body: { zone: { id: 4711, name: FAKE_ZONE, ttl: 3600, mode: 'primary', status: 'ok' } } };
    if (!m[2]) {
      if (r.method !== 'POST') return fail(405, 'method_not_allowed', 'method not allowed');
      const b = bodyOf<{ name: string; type: string; ttl?: number; records: Array<{ value: string }> }>(r);
      const name = fullOf(b.name);
      if (!inZone(name)) return fail(422, 'invalid_input', 'name out of zone');
      if (st.find(name, b.type)) return fail(409, 'uniqueness_error', 'RRset already exists');
      const vs = values(b.records, b.type);
      if (vs.some((v) => v === null)) return invalid;
      replaceSet(st, newId(), name, b.type, vs as string[], b.ttl ?? 3600);
      return { status: 201, body: { rrset: { id: `${b.name}/${b.type}`, name: b.name, type: b.type, ttl: b.ttl ?? null, records: b.records }, action: action('create_rrset').body.action } };
    }
    const [, , rel, type, setRecords] = m as unknown as [string, string, string, string, string | undefined];
    const name = fullOf(decodeURIComponent(rel));
    const recs = st.all(name, type);
    if (!recs.length) return fail(404, 'not_found', 'rrset not found');
    if (r.method === 'GET' && !setRecords) {
      return { status: 200, body: { rrset: { id: `${rel}/${type}`, name: decodeURIComponent(rel), type, ttl: recs[0]!.ttl, records: recs.map((x) => ({ value: type === 'TXT' ? quoted(x.value) : x.value, comment: '' })), zone: 4711 } } };
    }
    if (r.method === 'DELETE' && !setRecords) {
      for (const x of recs) drop(st, x.id);
      return action('delete_rrset');
    }
    if (r.method === 'POST' && setRecords) {
      const vs = values(bodyOf<{ records: Array<{ value: string }> }>(r).records, type);
      if (!vs.length || vs.some((v) => v === null)) return invalid;
      replaceSet(st, setOf(st, name, type) ?? newId(), name, type, vs as string[], recs[0]!.ttl);
      return action('set_rrset_records');
    }
    return fail(405, 'method_not_allowed', 'method not allowed');
  }, { limited: { status: 429, headers: { 'ratelimit-limit': '3600', 'ratelimit-remaining': '0', 'ratelimit-reset': String(Math.floor(Date.now() / 1000)) }, body: { error: { code: 'rate_limit_exceeded', message: 'limit of 3600 requests per hour reached', details: {} } } } });
}
