/** Rainyun API v2: `x-api-key`; one domain's records (by the domain's id), `code`/`message` answers. */
import { bodyOf, drop, FAKE_ZONE, fullOf, inZone, Reject, relativeOf, serve, upsert, type FakeCreds, type FakeProvider, type FakeRecord } from '../fakeserver.js';

/** The domain id the stand-in knows (a task's `id`). */
export const RAINYUN_DOMAIN_ID = '36021';

export function fakeRainyun(c: FakeCreds): Promise<FakeProvider> {
  return serve('rainyun', (r, st) => {
    if (r.headers['x-api-key'] !== c.secret) throw new Reject(401, { code: 30001, message: '未登录或 API 密钥错误' }, 'key');
    if (r.method === 'GET' && r.url.pathname === '/product/domain/') {
      // The account's domains, filtered by name (`options.columnFilters['domains.Domain']`).
      const want = (JSON.parse(r.url.searchParams.get('options') ?? '{}') as { columnFilters?: Record<string, string> }).columnFilters?.['domains.Domain'] ?? '';
      const mine = [{ id: Number(RAINYUN_DOMAIN_ID), domain: FAKE_ZONE }].filter((d) => d.domain.includes(want));
      return { status: 200, body: { code: 200, data: { TotalRecords: mine.length, Records: mine } } };
    }
    const m = /^\/product\/domain\/([^/]+)\/dns\/?$/.exec(r.url.pathname);
    if (!m) return { status: 404, body: { code: 404, message: 'not found' } };
    if (m[1] !== RAINYUN_DOMAIN_ID) return { status: 200, body: { code: 30039, message: '域名不存在或不属于你' } };
    const ok = (data?: unknown) => ({ status: 200, body: { code: 200, ...(data !== undefined ? { data } : {}) } });
    const view = (x: FakeRecord) => ({ record_id: Number(x.id), host: relativeOf(x.name), type: x.type, value: x.value, line: 'DEFAULT', ttl: x.ttl, level: 10 });
    if (r.method === 'GET') {
      const recs = [...st.records.values()].filter((x) => inZone(x.name, FAKE_ZONE));
      return ok({ TotalRecords: recs.length, Records: recs.map(view) });
    }
    if (r.method === 'DELETE') return drop(st, r.url.searchParams.get('record_id') ?? '') ? ok() : { status: 200, body: { code: 30040, message: '记录不存在' } };
    const b = bodyOf<{ record_id: number; host: string; type: string; value: string; ttl: number; line: string }>(r);
    if (r.method === 'POST' && b.record_id === 0) return ok(Number(upsert(st, fullOf(b.host), b.type, b.value, b.ttl).id));
    if (r.method === 'PATCH' && st.records.has(String(b.record_id))) {
      upsert(st, fullOf(b.host), b.type, b.value, b.ttl, String(b.record_id));
      return ok();
    }
    return { status: 200, body: { code: 30040, message: '记录不存在' } };
  });
}
