/**
 * Now.cn (Todaynic) and Eranet's shared DNS API: records by host and type, `{ Data, Id, error }`
 * answers. Now.cn checks `auth-userid` and `api-key`; Eranet the Alibaba-style query signature with
 * `AccessInstanceID`.
 */
import { drop, FAKE_ZONE, fullOf, inZone, Reject, relativeOf, serve, upsert, type FakeCreds, type FakeProvider, type FakeRecord, type Req } from '../fakeserver.js';
import { checkAliRpc } from './checks.js';

type Op = 'list' | 'add' | 'update' | 'delete';

function todaynic(name: string, route: (path: string) => Op | undefined, auth: (r: Req) => Record<string, string>): Promise<FakeProvider> {
  return serve(name, (r, st) => {
    const op = route(r.url.pathname);
    if (!op) return { status: 404, body: 'not found' };
    const q = auth(r);
    const fail = (error: string) => ({ status: 200, body: { RequestId: 'x', Id: 0, error } });
    // A delete names the record by its id alone.
    if (op === 'delete') return st.records.has(q.Id ?? '') && inZone(st.records.get(q.Id!)!.name) && drop(st, q.Id!) ? { status: 200, body: { RequestId: 'x', Id: Number(q.Id), error: '' } } : fail('记录不存在');
    if (q.Domain !== FAKE_ZONE) return fail('域名不存在或不属于该账户');
    const view = (x: FakeRecord) => ({ id: Number(x.id), Domain: FAKE_ZONE, Host: relativeOf(x.name), Type: x.type, Value: x.value, Ttl: x.ttl, State: 1 });
    if (op === 'list') return { status: 200, body: { RequestId: 'x', error: '', Data: [...st.records.values()].filter((x) => inZone(x.name)).map(view) } };
    if (Number(q.Ttl) < 600) return fail('TTL 不能小于 600');
    if (op === 'add') return { status: 200, body: { RequestId: 'x', Id: Number(upsert(st, fullOf(q.Host!), q.Type!, q.Value!, Number(q.Ttl)).id), error: '' } };
    if (!st.records.has(q.Id ?? '')) return fail('记录不存在');
    upsert(st, fullOf(q.Host!), q.Type!, q.Value!, Number(q.Ttl), q.Id);
    return { status: 200, body: { RequestId: 'x', Id: Number(q.Id), error: '' } };
  });
}

const NOWCN: Record<string, Op> = {
  '/describe-record-index.json': 'list',
  '/add-domain-record.json': 'add',
  '/update-domain-record.json': 'update',
  '/delete-domain-record.json': 'delete',
};
const ERANET: Record<string, Op> = { '/DescribeRecordIndex': 'list', '/AddDomainRecord': 'add', '/UpdateDomainRecord': 'update', '/DeleteDomainRecord': 'delete' };

export function fakeNowcn(c: FakeCreds): Promise<FakeProvider> {
  return todaynic(
    'nowcn',
    (p) => NOWCN[p],
    (r) => {
      const q = Object.fromEntries(r.url.searchParams.entries());
      if (q['auth-userid'] !== c.id || q['api-key'] !== c.secret) throw new Reject(200, { RequestId: 'x', Id: 0, error: 'auth-userid 或 api-key 错误' }, 'key');
      return q;
    },
  );
}

export function fakeEranet(c: FakeCreds): Promise<FakeProvider> {
  const nonces = new Set<string>();
  return todaynic(
    'eranet',
    (p) => ERANET[p],
    (r) => {
      try {
        return checkAliRpc(r, c, nonces, 'AccessInstanceID', false);
      } catch (err) {
        const code = (err as Reject).message;
        throw new Reject(403, { RequestId: 'x', Id: 0, error: `${code}: signature or AccessInstanceID refused` }, code);
      }
    },
  );
}
