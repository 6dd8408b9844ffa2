/** DuckDNS: one GET with the token; the answer is OK or KO. */
import { providerError, type DnsProvider } from './types.js';

export const duckdns: DnsProvider = {
  name: 'duckdns',
  base: 'https://www.duckdns.org',
  canRead: false,
  async set(ctx, want) {
    const name = want.domain.full.replace(/\.duckdns\.org$/, '');
    const qs = new URLSearchParams({ domains: name, token: ctx.creds.secret, [want.type === 'A' ? 'ip' : 'ipv6']: want.value, verbose: 'true' });
    const res = await ctx.http({ url: `${ctx.base}/update?${qs}` });
    const first = res.text.split('\n')[0]?.trim();
    if (res.status !== 200 || first !== 'OK') throw providerError('DuckDNS', first || `HTTP ${res.status}`);
    return /NOCHANGE/.test(res.text) ? 'same' : 'updated';
  },
};
