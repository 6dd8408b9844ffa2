/**
 * Dynadot dynamic DNS (`set_ddns` with the domain's dynamic DNS password): one GET per name,
 * addresses only, write-only. The answer's `error_code` -1 is a refusal, its `content` why.
 */
import { jsonOf } from '../../http/request.js';
import { addressType, providerError, type DnsProvider } from './types.js';

export const dynadot: DnsProvider = {
  name: 'dynadot',
  base: 'https://www.dynadot.com',
  async set(ctx, want) {
    const type = addressType(want, 'Dynadot');
    const d = want.domain;
    const apex = d.sub === '@';
    const q = new URLSearchParams({ domain: d.root, subDomain: apex ? '' : d.sub, containRoot: String(apex), type, ip: want.value, pwd: ctx.creds.secret, ttl: String(want.ttl) });
    const res = await ctx.http({ url: `${ctx.base}/set_ddns?${q}` });
    const a = jsonOf<{ status?: string; error_code?: number; content?: string[] }>(res);
    if (res.status !== 200 || a.error_code === -1 || a.status !== 'success') throw providerError('Dynadot', (a.content ?? []).join('; ') || a.status || `HTTP ${res.status}`);
    return 'updated';
  },
};
