/** Vercel DNS: bearer token, optional team id (`id`). */
import { jsonOf } from '../../http/request.js';
import { httpError, sameValue, type DnsProvider } from './types.js';

export const vercel: DnsProvider = {
  name: 'vercel',
  base: 'https://api.vercel.com',
  canRead: true,
  async set(ctx, want) {
    const d = want.domain;
    const team = ctx.creds.id ? `teamId=${encodeURIComponent(ctx.creds.id)}` : '';
    const headers = { authorization: `Bearer ${ctx.creds.secret}`, 'content-type': 'application/json' };
    const name = d.sub === '@' ? '' : d.sub;
    const got = await ctx.http({ url: `${ctx.base}/v4/domains/${d.root}/records?limit=100${team ? `&${team}` : ''}`, headers });
    if (got.status !== 200) throw httpError(got, 'Vercel');
    const recs = jsonOf<{ records: Array<{ id: string; name: string; type: string; value: string }> }>(got).records;
    const rec = recs.find((r) => r.name === name && r.type === want.type);
    if (!rec) {
      const res = await ctx.http({
        method: 'POST',
        url: `${ctx.base}/v2/domains/${d.root}/records${team ? `?${team}` : ''}`,
        headers,
        body: JSON.stringify({ name, type: want.type, value: want.value, ttl: want.ttl }),
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
};
