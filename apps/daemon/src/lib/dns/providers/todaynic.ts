/**
 * Now.cn (时代互联, Todaynic) and Eranet, which share one DNS API: records of a domain by host
 * (`@` at the apex), added, updated and deleted by id (a delete names the record's `Id` alone);
 * answers `{ Data, Id, error }`, refusals also with a non-2xx status. Now.cn takes the user id and
 * API key in the query (`auth-userid`, `api-key`); Eranet signs the query the way Alibaba Cloud's RPC
 * APIs do, with `AccessInstanceID` for the key id. Eranet's delete call (`DeleteDomainRecord`) is
 * named after its list/add/update calls: no published description of it was found.
 */
import { aliSignedQuery } from '../../http/sign/acsrpc.js';
import { recordsProvider } from './generic.js';
import { readJson } from './rest.js';
import { providerError, type DnsProvider, type ProviderContext } from './types.js';

interface TnRecord {
  id: number;
  Host: string;
  Type: string;
  Value: string;
}

type Op = 'list' | 'add' | 'update' | 'delete';

function todaynic(who: { name: 'nowcn' | 'eranet'; title: string; base: string }, request: (ctx: ProviderContext, op: Op, params: Record<string, string>) => string): DnsProvider {
  async function call<T>(ctx: ProviderContext, op: Op, params: Record<string, string>): Promise<T & { error?: string }> {
    const res = await ctx.http({ url: request(ctx, op, params), headers: { accept: 'application/json' } });
    const a = readJson<T & { error?: string }>(res, who.title);
    if (a.error) throw providerError(who.title, a.error);
    return a;
  }
  return recordsProvider<string, TnRecord>(
    { name: who.name, base: who.base },
    {
      zone: async (_ctx, d) => d.root,
      async list(ctx, zone, ref) {
        const a = await call<{ Data?: TnRecord[] }>(ctx, 'list', { Domain: zone, Host: ref.domain.sub, Type: ref.type });
        return (a.Data ?? []).filter((r) => r.Host === ref.domain.sub && r.Type === ref.type);
      },
      valueOf: (r) => r.Value,
      create: async (ctx, zone, want) => {
        await call(ctx, 'add', { Domain: zone, Host: want.domain.sub, Type: want.type, Value: want.value, Ttl: String(want.ttl) });
      },
      update: async (ctx, zone, rec, want) => {
        await call(ctx, 'update', { Id: String(rec.id), Domain: zone, Host: want.domain.sub, Type: want.type, Value: want.value, Ttl: String(want.ttl) });
      },
      // The record's id alone, as Now.cn's delete-domain-record.json takes it.
      delete: async (ctx, _zone, rec) => {
        await call(ctx, 'delete', { Id: String(rec.id) });
      },
    },
  );
}

const NOWCN_PATH: Record<Op, string> = { list: 'describe-record-index.json', add: 'add-domain-record.json', update: 'update-domain-record.json', delete: 'delete-domain-record.json' };
const ERANET_PATH: Record<Op, string> = { list: 'DescribeRecordIndex', add: 'AddDomainRecord', update: 'UpdateDomainRecord', delete: 'DeleteDomainRecord' };

export const nowcn = todaynic(
  { name: 'nowcn', title: 'Now.cn', base: 'https://todapi.now.cn:2443/api/dns' },
  (ctx, op, params) => `${ctx.base}/${NOWCN_PATH[op]}?${new URLSearchParams({ ...params, 'auth-userid': ctx.creds.id, 'api-key': ctx.creds.secret })}`,
);

export const eranet = todaynic(
  { name: 'eranet', title: 'Eranet', base: 'https://www.eranet.com/api/Dns' },
  (ctx, op, params) => `${ctx.base}/${ERANET_PATH[op]}?${aliSignedQuery({ ...params, AccessInstanceID: ctx.creds.id, SignatureMethod: 'HMAC-SHA1' }, { secret: ctx.creds.secret, now: ctx.now() })}`,
);
