/**
 * Vercel DNS: bearer token, optional team id (`id`). Records listed per domain (`/v4/.../records`),
 * added (`/v2`), changed (`/v1/domains/records/{id}`) and deleted one by one (`/v2/.../records/{id}`).
 */
import { jsonOf } from '../../http/request.js';
import { httpError, pickRecord, recordsToRemove, sameValue, zoneNotFound, type DnsProvider, type ProviderContext, type RecordRef } from './types.js';

interface VercelRecord {
  id: string;
  name: string;
  type: string;
  value: string;
}

const headersOf = (ctx: ProviderContext) => ({ authorization: `Bearer ${ctx.creds.secret}`, 'content-type': 'application/json' });
/** `teamId=…` when the account is a team's, else ''. */
const teamOf = (ctx: ProviderContext) => (ctx.creds.id ? `teamId=${encodeURIComponent(ctx.creds.id)}` : '');
const nameOf = (want: RecordRef) => (want.domain.sub === '@' ? '' : want.domain.sub);

async function recordsOf(ctx: ProviderContext, want: RecordRef): Promise<VercelRecord[]> {
  const team = teamOf(ctx);
  const got = await ctx.http({ url: `${ctx.base}/v4/domains/${want.domain.root}/records?limit=100${team ? `&${team}` : ''}`, headers: headersOf(ctx) });
  // 404: the domain is not in the account (or the team).
  if (got.status === 404) throw zoneNotFound('Vercel', want.domain.root);
  if (got.status !== 200) throw httpError(got, 'Vercel');
  const name = nameOf(want);
  return jsonOf<{ records: VercelRecord[] }>(got).records.filter((r) => r.name === name && r.type === want.type);
}

export const vercel: DnsProvider = {
  name: 'vercel',
  base: 'https://api.vercel.com',
  async set(ctx, want) {
    const d = want.domain;
    const team = teamOf(ctx);
    const headers = headersOf(ctx);
    const rec = pickRecord(await recordsOf(ctx, want), (r) => r.value, want);
    if (!rec) {
      const res = await ctx.http({
        method: 'POST',
        url: `${ctx.base}/v2/domains/${d.root}/records${team ? `?${team}` : ''}`,
        headers,
        body: JSON.stringify({ name: nameOf(want), type: want.type, value: want.value, ttl: want.ttl }),
      });
      if (res.status !== 200) throw httpError(res, 'Vercel');
      return 'created';
    }
    if (sameValue(rec.value, want)) return 'same';
    const res = await ctx.http({
      method: 'PATCH',
      url: `${ctx.base}/v1/domains/records/${rec.id}${team ? `?${team}` : ''}`,
      headers,
      body: JSON.stringify({ value: want.value, ttl: want.ttl }),
    });
    if (res.status !== 200) throw httpError(res, 'Vercel');
    return 'updated';
  },
  async list(ctx, want) {
    return (await recordsOf(ctx, want)).map((r) => r.value);
  },
  async remove(ctx, want) {
    const team = teamOf(ctx);
    for (const rec of recordsToRemove(await recordsOf(ctx, want), (r) => r.value, want)) {
      const res = await ctx.http({ method: 'DELETE', url: `${ctx.base}/v2/domains/${want.domain.root}/records/${rec.id}${team ? `?${team}` : ''}`, headers: headersOf(ctx) });
      if (res.status !== 200) throw httpError(res, 'Vercel');
    }
  },
};
