/**
 * GoDaddy Domains API v1: `sso-key KEY:SECRET`; `PUT /v1/domains/{domain}/records/{type}/{name}` replaces
 * the name's records of the type, `DELETE` on the same path removes them all (a value is removed by
 * putting the others back).
 */
import { jsonOf } from '../../http/request.js';
import { errorDetail } from './rest.js';
import { httpError, recordsToRemove, setHolds, zoneNotFound, type DnsProvider, type ProviderContext, type RecordRef } from './types.js';

const urlOf = (ctx: ProviderContext, want: RecordRef) => `${ctx.base}/v1/domains/${want.domain.root}/records/${want.type}/${encodeURIComponent(want.domain.sub)}`;
const headersOf = (ctx: ProviderContext) => ({ authorization: `sso-key ${ctx.creds.id}:${ctx.creds.secret}`, 'content-type': 'application/json', accept: 'application/json' });

async function recordsOf(ctx: ProviderContext, want: RecordRef): Promise<Array<{ data: string; ttl: number }>> {
  const got = await ctx.http({ url: urlOf(ctx, want), headers: headersOf(ctx) });
  // 404 UNKNOWN_DOMAIN: the domain is not in the account (or has no zone file there).
  if (got.status === 404 && /UNKNOWN_DOMAIN/.test(got.text)) throw zoneNotFound('GoDaddy', want.domain.root);
  if (got.status !== 200) throw httpError(got, 'GoDaddy', errorDetail(got));
  return jsonOf<Array<{ data: string; ttl: number }>>(got);
}

async function put(ctx: ProviderContext, want: RecordRef, records: Array<{ data: string; ttl: number }>): Promise<void> {
  const res = await ctx.http({ method: 'PUT', url: urlOf(ctx, want), headers: headersOf(ctx), body: JSON.stringify(records) });
  if (res.status !== 200) throw httpError(res, 'GoDaddy');
}

export const godaddy: DnsProvider = {
  name: 'godaddy',
  base: 'https://api.godaddy.com',
  async set(ctx, want) {
    const recs = await recordsOf(ctx, want);
    if (setHolds(recs.map((r) => r.data), want)) return 'same';
    await put(ctx, want, [{ data: want.value, ttl: want.ttl }]);
    return recs.length ? 'updated' : 'created';
  },
  async list(ctx, want) {
    return (await recordsOf(ctx, want)).map((r) => r.data);
  },
  async remove(ctx, want) {
    const recs = await recordsOf(ctx, want);
    const gone = recordsToRemove(recs, (r) => r.data, want);
    if (gone.length === 0) return;
    const kept = recs.filter((r) => !gone.includes(r));
    if (kept.length) return put(ctx, want, kept);
    const res = await ctx.http({ method: 'DELETE', url: urlOf(ctx, want), headers: headersOf(ctx) });
    if (res.status !== 204 && res.status !== 200) throw httpError(res, 'GoDaddy');
  },
};
