/**
 * DuckDNS: one GET with the token; the answer is OK or KO. A domain has one TXT record, answered for
 * the domain and every name under it (`_acme-challenge.myhome.duckdns.org` is `myhome`'s): `txt=` sets
 * it, `txt=&clear=true` clears it (whatever value it holds: there is only one).
 */
import { MsgError } from '../../msgerror.js';
import { providerError, type DnsProvider, type ProviderContext } from './types.js';

/** The DuckDNS domain a name belongs to: `myhome` of `_acme-challenge.myhome.duckdns.org`. */
function domainOf(full: string): string {
  return full.replace(/\.duckdns\.org$/, '').split('.').pop()!;
}

async function update(ctx: ProviderContext, params: Record<string, string>): Promise<'same' | 'updated'> {
  const qs = new URLSearchParams({ ...params, token: ctx.creds.secret, verbose: 'true' });
  const res = await ctx.http({ url: `${ctx.base}/update?${qs}` });
  const first = res.text.split('\n')[0]?.trim();
  if (res.status !== 200 || first !== 'OK') throw providerError('DuckDNS', first || `HTTP ${res.status}`);
  return /NOCHANGE/.test(res.text) ? 'same' : 'updated';
}

export const duckdns: DnsProvider = {
  name: 'duckdns',
  base: 'https://www.duckdns.org',
  set(ctx, want) {
    if (want.type === 'TXT') return update(ctx, { domains: domainOf(want.domain.full), txt: want.value });
    return update(ctx, { domains: want.domain.full.replace(/\.duckdns\.org$/, ''), [want.type === 'A' ? 'ip' : 'ipv6']: want.value });
  },
  async remove(ctx, want) {
    if (want.type !== 'TXT') throw new MsgError({ key: 'dnsTypeUnsupported', vars: { provider: 'DuckDNS', type: want.type } });
    await update(ctx, { domains: domainOf(want.domain.full), txt: '', clear: 'true' });
  },
};
