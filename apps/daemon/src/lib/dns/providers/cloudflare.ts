/** Cloudflare API v4 with an API token (Zone.DNS edit). `?proxied=true` and `?comment=` per domain. */
import { jsonOf } from '../../http/request.js';
import { MsgError } from '../../msgerror.js';
import { providerError, sameValue, type DnsProvider, type ProviderContext } from './types.js';

interface CfAnswer<T> {
  success: boolean;
  errors?: Array<{ code: number; message: string }>;
  result: T;
}
interface CfRecord {
  id: string;
  name: string;
  type: string;
  content: string;
  ttl: number;
  proxied?: boolean;
}

async function cf<T>(ctx: ProviderContext, method: string, path: string, body?: unknown): Promise<T> {
  const res = await ctx.http({
    method,
    url: `${ctx.base}${path}`,
    headers: { authorization: `Bearer ${ctx.creds.secret}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const a = jsonOf<CfAnswer<T>>(res);
  if (!a.success) throw providerError('Cloudflare', a.errors?.map((e) => `${e.code} ${e.message}`).join('; ') || `HTTP ${res.status}`);
  return a.result;
}

export const cloudflare: DnsProvider = {
  name: 'cloudflare',
  base: 'https://api.cloudflare.com/client/v4',
  canRead: true,
  async set(ctx, want) {
    const zones = await cf<Array<{ id: string }>>(ctx, 'GET', `/zones?name=${encodeURIComponent(want.domain.root)}&status=active&per_page=50`);
    const zone = zones[0];
    if (!zone) throw new MsgError({ key: 'dnsZoneNotFound', vars: { provider: 'Cloudflare', zone: want.domain.root } });
    const records = await cf<CfRecord[]>(
      ctx,
      'GET',
      `/zones/${zone.id}/dns_records?type=${want.type}&name=${encodeURIComponent(want.domain.full)}&per_page=50`,
    );
    const proxied = want.domain.params.proxied === 'true';
    const body = {
      type: want.type,
      name: want.domain.full,
      content: want.value,
      ttl: proxied ? 1 : want.ttl,
      proxied,
      ...(want.domain.params.comment ? { comment: want.domain.params.comment } : {}),
    };
    const rec = records[0];
    if (!rec) {
      await cf(ctx, 'POST', `/zones/${zone.id}/dns_records`, body);
      return 'created';
    }
    if (sameValue(rec.content, want) && (rec.proxied ?? false) === proxied) return 'same';
    await cf(ctx, 'PUT', `/zones/${zone.id}/dns_records/${rec.id}`, body);
    return 'updated';
  },
};
