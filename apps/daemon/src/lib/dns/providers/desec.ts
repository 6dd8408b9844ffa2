/** deSEC REST API: `Token` auth, one RRset per subname and type. */
import { jsonOf } from '../../http/request.js';
import { httpError, sameValue, type DnsProvider } from './types.js';

export const desec: DnsProvider = {
  name: 'desec',
  base: 'https://desec.io/api/v1',
  canRead: true,
  async set(ctx, want) {
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
        body: JSON.stringify({ subname: sub, type: want.type, records: [want.value], ttl }),
      });
      if (res.status !== 201) throw httpError(res, 'deSEC');
      return 'created';
    }
    if (got.status !== 200) throw httpError(got, 'deSEC');
    const set = jsonOf<{ records: string[] }>(got);
    if (set.records.length === 1 && sameValue(set.records[0], want)) return 'same';
    const res = await ctx.http({ method: 'PATCH', url: setUrl, headers, body: JSON.stringify({ records: [want.value], ttl }) });
    if (res.status !== 200) throw httpError(res, 'deSEC');
    return 'updated';
  },
};
