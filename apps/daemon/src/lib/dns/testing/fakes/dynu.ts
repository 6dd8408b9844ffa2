/** Dynu API v2: `API-Key` header; the account's domains, records by id with the value in a field per type. */
import { bodyOf, drop, FAKE_ZONE, Reject, serve, upsert, type FakeCreds, type FakeProvider, type FakeRecord } from '../fakeserver.js';

const FIELD: Record<string, string> = { A: 'ipv4Address', AAAA: 'ipv6Address', TXT: 'textData' };

export function fakeDynu(c: FakeCreds): Promise<FakeProvider> {
  const domain = { id: 98765, name: FAKE_ZONE };
  return serve('dynu', (r, st) => {
    if (r.headers['api-key'] !== c.secret) throw new Reject(401, { statusCode: 401, type: 'Authentication Exception', message: 'API-Key is not valid.' }, 'key');
    if (r.method === 'GET' && r.url.pathname === '/dns') return { status: 200, body: { statusCode: 200, domains: [domain] } };
    const m = /^\/dns\/(\d+)\/record(?:\/(\d+))?$/.exec(r.url.pathname);
    if (!m || Number(m[1]) !== domain.id) return { status: 404, body: { statusCode: 404, type: 'Not Found Exception', message: 'Domain not found.' } };
    const view = (x: FakeRecord) => ({
      id: Number(x.id),
      domainId: domain.id,
      domainName: domain.name,
      nodeName: x.name === domain.name ? '' : x.name.slice(0, -domain.name.length - 1),
      hostname: x.name,
      recordType: x.type,
      ttl: x.ttl,
      state: true,
      [FIELD[x.type]!]: x.value,
    });
    if (r.method === 'GET' && !m[2]) return { status: 200, body: { statusCode: 200, dnsRecords: [...st.records.values()].filter((x) => x.name === domain.name || x.name.endsWith(`.${domain.name}`)).map(view) } };
    if (r.method === 'DELETE' && m[2]) {
      return drop(st, m[2]) ? { status: 200, body: { statusCode: 200 } } : { status: 404, body: { statusCode: 404, type: 'Not Found Exception', message: 'Record not found.' } };
    }
    const b = bodyOf<Record<string, string | number | boolean>>(r);
    const type = String(b.recordType);
    const value = b[FIELD[type] ?? ''];
    if (typeof value !== 'string' || typeof b.nodeName !== 'string') return { status: 400, body: { statusCode: 400, type: 'Validation Exception', message: 'value' } };
    const name = b.nodeName ? `${b.nodeName}.${domain.name}` : domain.name;
    if (m[2] && !st.records.has(m[2])) return { status: 404, body: { statusCode: 404, type: 'Not Found Exception', message: 'Record not found.' } };
    return { status: 200, body: view(upsert(st, name, type, value, Number(b.ttl), m[2])) };
  });
}
