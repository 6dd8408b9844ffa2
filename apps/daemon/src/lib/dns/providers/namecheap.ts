/** Namecheap dynamic DNS (IPv4 only): one GET per host with the domain's DDNS password. */
import { providerError, type DnsProvider } from './types.js';

export const namecheap: DnsProvider = {
  name: 'namecheap',
  base: 'https://dynamicdns.park-your-domain.com',
  async set(ctx, want) {
    const d = want.domain;
    const qs = new URLSearchParams({ host: d.sub, domain: d.root, password: ctx.creds.secret, ip: want.value });
    const res = await ctx.http({ url: `${ctx.base}/update?${qs}` });
    const errs = /<ErrCount>(\d+)<\/ErrCount>/.exec(res.text);
    if (res.status !== 200 || !errs || errs[1] !== '0') {
      const msg = /<Err1>([^<]*)<\/Err1>/.exec(res.text)?.[1] ?? `HTTP ${res.status}`;
      throw providerError('Namecheap', msg);
    }
    return 'updated';
  },
};
