/** dynv6 update API: one GET per zone with the HTTP token; answers "addresses unchanged" when equal. */
import { excerpt } from '../../http/request.js';
import { httpError, type DnsProvider } from './types.js';

export const dynv6: DnsProvider = {
  name: 'dynv6',
  base: 'https://dynv6.com',
  async set(ctx, want) {
    const qs = new URLSearchParams({ hostname: want.domain.full, token: ctx.creds.secret, [want.type === 'A' ? 'ipv4' : 'ipv6']: want.value });
    const res = await ctx.http({ url: `${ctx.base}/api/update?${qs}` });
    if (res.status !== 200) throw httpError(res, 'dynv6', excerpt(res, 200));
    return /unchanged/i.test(res.text) ? 'same' : 'updated';
  },
};
