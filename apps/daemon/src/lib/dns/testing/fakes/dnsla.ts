/** DNS.LA open API v2: basic auth with API ID and secret; `code`/`msg` answers; record types by number. */
import { bodyOf, drop, FAKE_ZONE, fullOf, inZone, Reject, relativeOf, serve, upsert, type FakeCreds, type FakeProvider, type FakeRecord } from '../fakeserver.js';

const TYPES: Record<number, string> = { 1: 'A', 16: 'TXT', 28: 'AAAA' };
const NUMBERS: Record<string, number> = { A: 1, TXT: 16, AAAA: 28 };

export function fakeDnsla(c: FakeCreds): Promise<FakeProvider> {
  const domain = { id: '85371689655342080', domain: FAKE_ZONE };
  return serve('dnsla', (r, st) => {
    if (r.headers.authorization !== `Basic ${Buffer.from(`${c.id}:${c.secret}`).toString('base64')}`) throw new Reject(401, { code: 401, msg: 'APIID 或 APISecret 错误' }, 'basic auth');
    const ok = (data?: unknown) => ({ status: 200, body: { code: 200, msg: '', ...(data !== undefined ? { data } : {}) } });
    const fail = (code: number, msg: string) => ({ status: 200, body: { code, msg } });
    const q = r.url.searchParams;
    const view = (x: FakeRecord) => ({ id: x.id, domainId: domain.id, host: relativeOf(x.name), type: NUMBERS[x.type], data: x.value, ttl: x.ttl, displayHost: x.name });
    if (r.method === 'GET' && r.url.pathname === '/api/domain') return q.get('domain') === domain.domain ? ok(domain) : fail(400, '域名不存在');
    if (r.method === 'GET' && r.url.pathname === '/api/recordList') {
      if (q.get('domainId') !== domain.id) return fail(400, '域名不存在');
      const recs = [...st.records.values()].filter((x) => inZone(x.name) && (!q.get('host') || relativeOf(x.name) === q.get('host')) && (!q.get('type') || NUMBERS[x.type] === Number(q.get('type'))));
      return ok({ total: recs.length, results: recs.map(view) });
    }
    if (r.url.pathname !== '/api/record') return { status: 404, body: { code: 404, msg: 'not found' } };
    if (r.method === 'DELETE') return drop(st, q.get('id') ?? '') ? ok() : fail(400, '记录不存在');
    const b = bodyOf<{ id?: string; domainId?: string; type: number; host: string; data: string; ttl: number }>(r);
    const type = TYPES[b.type];
    if (!type) return fail(400, '记录类型错误');
    if (r.method === 'POST') return b.domainId === domain.id ? ok({ id: upsert(st, fullOf(b.host), type, b.data, b.ttl).id }) : fail(400, '域名不存在');
    if (r.method === 'PUT' && st.records.has(b.id ?? '')) {
      upsert(st, fullOf(b.host), type, b.data, b.ttl, b.id);
      return ok();
    }
    return fail(400, '记录不存在');
  });
}
