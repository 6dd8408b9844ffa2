/** deSEC REST API: `Token` auth, one RRset per subname and type. */
import { jsonOf } from '../http.js';
import { ProviderError, sameIp, type DnsProvider } from './types.js';

export const desec: DnsProvider = {
  name: 'desec',
  base: 'https://desec.io/api/v1',
  canRead: true,
  async sync(ctx, want) {
    const d = want.domain;
    const headers = { authorization: `Token ${ctx.creds.secret}`, 'content-type': 'application/json' };
    const sub = d.sub === '@' ? '' : d.sub;
    const setUrl = `${ctx.base}/domains/${d.root}/rrsets/${sub || '@'}/${want.type}/`;
    const got = await ctx.http({ url: setUrl, headers });
    const ttl = Math.max(3600, want.ttl);
    if (got.status === 404) {
      const res = await ctx.http({
        method: 'POST',
        url: `${ctx.base}/domains/${d.root}/rrsets/`,
        headers,
        body: JSON.stringify({ subname: sub, type: want.type, records: [want.ip], ttl }),
      });
      if (res.status !== 201) throw new ProviderError(`deSEC: HTTP ${res.status} ${res.text.slice(0, 300)}`);
      return 'created';
    }
    if (got.status !== 200) throw new ProviderError(`deSEC: HTTP ${got.status} ${got.text.slice(0, 300)}`);
    const set = jsonOf<{ records: string[] }>(got);
    if (set.records.length === 1 && sameIp(set.records[0], want.ip)) return 'same';
    const res = await ctx.http({ method: 'PATCH', url: setUrl, headers, body: JSON.stringify({ records: [want.ip], ttl }) });
    if (res.status !== 200) throw new ProviderError(`deSEC: HTTP ${res.status} ${res.text.slice(0, 300)}`);
    return 'updated';
  },
};
