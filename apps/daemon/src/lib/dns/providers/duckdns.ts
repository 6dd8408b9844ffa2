/** DuckDNS: one GET with the token; the answer is OK or KO. */
import { ProviderError, type DnsProvider } from './types.js';

export const duckdns: DnsProvider = {
  name: 'duckdns',
  base: 'https://www.duckdns.org',
  canRead: false,
  async sync(ctx, want) {
    const name = want.domain.full.replace(/\.duckdns\.org$/, '');
    const qs = new URLSearchParams({ domains: name, token: ctx.creds.secret, [want.type === 'A' ? 'ip' : 'ipv6']: want.ip, verbose: 'true' });
    const res = await ctx.http({ url: `${ctx.base}/update?${qs}` });
    const first = res.text.split('\n')[0]?.trim();
    if (res.status !== 200 || first !== 'OK') throw new ProviderError(`DuckDNS: ${first || `HTTP ${res.status}`}`);
    return /NOCHANGE/.test(res.text) ? 'same' : 'updated';
  },
};
