/** GoDaddy Domains API v1: `sso-key KEY:SECRET`; PUT replaces the name's records of the type. */
import { jsonOf } from '../http.js';
import { ProviderError, sameIp, type DnsProvider } from './types.js';

export const godaddy: DnsProvider = {
  name: 'godaddy',
  base: 'https://api.godaddy.com',
  canRead: true,
  async sync(ctx, want) {
    const d = want.domain;
    const url = `${ctx.base}/v1/domains/${d.root}/records/${want.type}/${encodeURIComponent(d.sub)}`;
    const headers = { authorization: `sso-key ${ctx.creds.id}:${ctx.creds.secret}`, 'content-type': 'application/json', accept: 'application/json' };
    const got = await ctx.http({ url, headers });
    if (got.status !== 200) throw new ProviderError(`GoDaddy: HTTP ${got.status} ${got.text.slice(0, 300)}`);
    const recs = jsonOf<Array<{ data: string; ttl: number }>>(got);
    if (recs.length === 1 && sameIp(recs[0]?.data, want.ip)) return 'same';
    const put = await ctx.http({ method: 'PUT', url, headers, body: JSON.stringify([{ data: want.ip, ttl: want.ttl }]) });
    if (put.status !== 200) throw new ProviderError(`GoDaddy: HTTP ${put.status} ${put.text.slice(0, 300)}`);
    return recs.length ? 'updated' : 'created';
  },
};
