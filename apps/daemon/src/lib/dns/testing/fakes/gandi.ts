/** Gandi LiveDNS v5: bearer PAT; one record set per name and type, TXT values quoted. */
import { drop, FAKE_ZONE, fullOf, newId, quoted, Reject, replaceSet, serve, setOf, unquoted, type FakeCreds, type FakeProvider } from '../fakeserver.js';

export function fakeGandi(c: FakeCreds): Promise<FakeProvider> {
  const notFound = (object: string) => ({ status: 404, body: { code: 404, message: 'The resource could not be found.', object, cause: 'Not Found' } });
  return serve('gandi', (r, st) => {
    if (r.headers.authorization !== `Bearer ${c.secret}`) {
      throw new Reject(401, { code: 401, message: 'The server could not verify that you are authorized to access the document you requested.', object: 'HTTPUnauthorized', cause: 'Unauthorized' }, 'token');
    }
    const m = /^\/domains\/([^/]+)(?:\/records\/([^/]+)\/(A|AAAA|TXT))?$/.exec(r.url.pathname);
    if (!m || m[1] !== FAKE_ZONE) return notFound('domain');
    if (!m[2]) return { status: 200, body: { fqdn: FAKE_ZONE, automatic_snapshots: true } };
    const type = m[3]!;
    const name = fullOf(decodeURIComponent(m[2]));
    const recs = st.all(name, type);
    if (r.method === 'GET') {
      if (!recs.length) return notFound('dns-record');
      return { status: 200, body: { rrset_name: m[2], rrset_type: type, rrset_ttl: recs[0]!.ttl, rrset_values: recs.map((x) => (type === 'TXT' ? quoted(x.value) : x.value)) } };
    }
    if (r.method === 'DELETE') {
      for (const x of recs) drop(st, x.id);
      return { status: 204, body: '' };
    }
    if (r.method !== 'PUT') return { status: 405, body: { code: 405, message: 'Method not allowed' } };
    const b = JSON.parse(r.body) as { rrset_values: string[]; rrset_ttl: number };
    const values = b.rrset_values.map((v) => (type === 'TXT' ? unquoted(v) : v));
    if (!values.length || values.some((v) => v === null)) return { status: 400, body: { code: 400, message: 'Invalid record value', object: 'dns-record', cause: 'Bad Request' } };
    if (b.rrset_ttl < 300) return { status: 400, body: { code: 400, message: 'rrset_ttl must be >= 300', object: 'dns-record', cause: 'Bad Request' } };
    replaceSet(st, setOf(st, name, type) ?? newId(), name, type, values as string[], b.rrset_ttl);
    return { status: 201, body: { message: 'DNS Record Created' } };
  });
}
