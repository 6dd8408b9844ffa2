/**
 * deSEC REST API: `Token` auth, one RRset per subname and type. TXT values in an RRset are quoted
 * character-strings; removing a value rewrites the set without it, or deletes the set when it was the last.
 */
import { jsonOf } from '../../http/request.js';
import { httpError, quotedValue, quoteTxt, recordsToRemove, setHolds, zoneNotFound, type DnsProvider, type ProviderContext, type RecordRef } from './types.js';

const headersOf = (ctx: ProviderContext) => ({ authorization: `Token ${ctx.creds.secret}`, 'content-type': 'application/json' });
const subname = (want: RecordRef) => (want.domain.sub === '@' ? '' : want.domain.sub);
const setUrl = (ctx: ProviderContext, want: RecordRef) => `${ctx.base}/domains/${want.domain.root}/rrsets/${subname(want) || '@'}/${want.type}/`;

/** The name's RRset of the type, or null when there is none. */
async function rrset(ctx: ProviderContext, want: RecordRef): Promise<{ records: string[]; ttl: number } | null> {
  const got = await ctx.http({ url: setUrl(ctx, want), headers: headersOf(ctx) });
  if (got.status === 404) return null;
  if (got.status !== 200) throw httpError(got, 'deSEC');
  return jsonOf<{ records: string[]; ttl: number }>(got);
}

export const desec: DnsProvider = {
  name: 'desec',
  base: 'https://desec.io/api/v1',
  async set(ctx, want) {
    const headers = headersOf(ctx);
    const set = await rrset(ctx, want);
    const ttl = Math.max(3600, want.ttl);
    const records = [want.type === 'TXT' ? quoteTxt(want.value) : want.value];
    if (!set) {
      const res = await ctx.http({
        method: 'POST',
        url: `${ctx.base}/domains/${want.domain.root}/rrsets/`,
        headers,
        body: JSON.stringify({ subname: subname(want), type: want.type, records, ttl }),
      });
      // The RRset was not there and its domain is not either: not in this account.
      if (res.status === 404) throw zoneNotFound('deSEC', want.domain.root);
      if (res.status !== 201) throw httpError(res, 'deSEC');
      return 'created';
    }
    if (setHolds(set.records.map((r) => quotedValue(want.type, r)), want)) return 'same';
    const res = await ctx.http({ method: 'PATCH', url: setUrl(ctx, want), headers, body: JSON.stringify({ records, ttl }) });
    if (res.status !== 200) throw httpError(res, 'deSEC');
    return 'updated';
  },
  async list(ctx, want) {
    return (await rrset(ctx, want))?.records.map((r) => quotedValue(want.type, r)) ?? [];
  },
  async remove(ctx, want) {
    const set = await rrset(ctx, want);
    if (!set) return;
    const gone = recordsToRemove(set.records, (r) => quotedValue(want.type, r), want);
    if (gone.length === 0) return;
    const kept = set.records.filter((r) => !gone.includes(r));
    const res = kept.length
      ? await ctx.http({ method: 'PATCH', url: setUrl(ctx, want), headers: headersOf(ctx), body: JSON.stringify({ records: kept }) })
      : await ctx.http({ method: 'DELETE', url: setUrl(ctx, want), headers: headersOf(ctx) });
    if (res.status !== 200 && res.status !== 204) throw httpError(res, 'deSEC');
  },
};
