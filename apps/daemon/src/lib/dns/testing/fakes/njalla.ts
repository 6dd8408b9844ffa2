/** Njalla API: JSON-RPC POSTs with `Authorization: Njalla <token>`; a domain's records by id (`name` relative, `@` at the apex); errors as `{ error: { code, message } }`. */
import { bodyOf, drop, FAKE_ZONE, fullOf, inZone, Reject, relativeOf, serve, upsert, type FakeCreds, type FakeProvider, type FakeRecord } from '../fakeserver.js';

export function fakeNjalla(c: FakeCreds): Promise<FakeProvider> {
  return serve('njalla', (r, st) => {
    if (r.method !== 'POST' || r.url.pathname !== '/') return { status: 404, body: 'not found' };
    const call = bodyOf<{ method: string; params: Record<string, string | number>; id?: unknown }>(r);
    const error = (code: number, message: string) => ({ status: 200, body: { jsonrpc: '2.0', id: call.id, error: { code, message } } });
    if (r.headers.authorization !== `Njalla ${c.secret}`) throw new Reject(200, { jsonrpc: '2.0', Error: { code: 403, message: 'Invalid token.' } }, 'token');
    const result = (x: unknown) => ({ status: 200, body: { jsonrpc: '2.0', id: call.id, result: x } });
    const p = call.params ?? {};
    if (p.domain !== FAKE_ZONE) return error(404, 'Domain not found');
    const view = (x: FakeRecord) => ({ id: Number(x.id), name: relativeOf(x.name), type: x.type, content: x.value, ttl: x.ttl });
    const rec = st.records.get(String(p.id ?? ''));
    switch (call.method) {
      case 'list-records':
        return result({ records: [...st.records.values()].filter((x) => inZone(x.name)).map(view) });
      case 'add-record':
        if (!['A', 'AAAA', 'TXT'].includes(String(p.type)) || typeof p.content !== 'string') return error(400, 'Invalid record');
        return result(view(upsert(st, fullOf(String(p.name)), String(p.type), p.content, Number(p.ttl))));
      case 'edit-record':
        if (!rec) return error(404, 'Record not found');
        return result(view(upsert(st, rec.name, rec.type, String(p.content), Number(p.ttl ?? rec.ttl), rec.id)));
      case 'remove-record':
        if (!rec) return error(404, 'Record not found');
        drop(st, rec.id);
        return result({});
    }
    return error(-32601, 'Method not found');
  }, { limited: { status: 429, body: 'Too Many Requests' } });
}
