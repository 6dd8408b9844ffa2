/** GoDaddy Domains API v1: `sso-key KEY:SECRET`; PUT replaces the name's records of the type. */
import { jsonOf } from '../../http/request.js';
import { httpError, sameValue, type DnsProvider } from './types.js';

export const godaddy: DnsProvider = {
  name: 'godaddy',
  base: 'https://api.godaddy.com',
  canRead: true,
  async set(ctx, want) {
    const d = want.domain;
    const url = `${ctx.base}/v1/domains/${d.root}/records/${want.type}/${encodeURIComponent(d.sub)}`;
    const headers = { authorization: `sso-key ${ctx.creds.id}:${ctx.creds.secret}`, 'content-type': 'application/json', accept: 'application/json' };
    const got = await ctx.http({ url, headers });
    if (got.status !== 200) throw httpError(got, 'GoDaddy');
    const recs = jsonOf<Array<{ data: string; ttl: number }>>(got);
    if (recs.length === 1 && sameValue(recs[0]?.data, want)) return 'same';
    const put = await ctx.http({ method: 'PUT', url, headers, body: JSON.stringify([{ data: want.value, ttl: want.ttl }]) });
    if (put.status !== 200) throw httpError(put, 'GoDaddy');
    return recs.length ? 'updated' : 'created';
  },
};
