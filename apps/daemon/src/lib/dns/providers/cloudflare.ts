/**
 * Cloudflare API v4 with an API token (Zone.DNS edit). `?proxied=true` and `?comment=` per domain.
 * TXT content is sent as a quoted character-string, as the API documents it, and read either way.
 */
import { jsonOf } from '../../http/request.js';
import { MsgError } from '../../msgerror.js';
import { pickRecord, providerError, quotedValue, quoteTxt, recordsToRemove, sameValue, type DnsProvider, type ProviderContext, type RecordRef } from './types.js';

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

async function zoneId(ctx: ProviderContext, root: string): Promise<string> {
  const zones = await cf<Array<{ id: string }>>(ctx, 'GET', `/zones?name=${encodeURIComponent(root)}&status=active&per_page=50`);
  const zone = zones[0];
  if (!zone) throw new MsgError({ key: 'dnsZoneNotFound', vars: { provider: 'Cloudflare', zone: root } });
  return zone.id;
}

function recordsOf(ctx: ProviderContext, zone: string, want: RecordRef): Promise<CfRecord[]> {
  return cf<CfRecord[]>(ctx, 'GET', `/zones/${zone}/dns_records?type=${want.type}&name=${encodeURIComponent(want.domain.full)}&per_page=50`);
}

const contentOf = (r: CfRecord) => quotedValue(r.type, r.content);

export const cloudflare: DnsProvider = {
  name: 'cloudflare',
  base: 'https://api.cloudflare.com/client/v4',
  async set(ctx, want) {
    const zone = await zoneId(ctx, want.domain.root);
    const records = await recordsOf(ctx, zone, want);
    const txt = want.type === 'TXT';
    // A TXT record cannot be proxied.
    const proxied = !txt && want.domain.params.proxied === 'true';
    const body = {
      type: want.type,
      name: want.domain.full,
      content: txt ? quoteTxt(want.value) : want.value,
      ttl: proxied ? 1 : want.ttl,
      ...(txt ? {} : { proxied }),
      ...(want.domain.params.comment ? { comment: want.domain.params.comment } : {}),
    };
    const rec = pickRecord(records, contentOf, want);
    if (!rec) {
      await cf(ctx, 'POST', `/zones/${zone}/dns_records`, body);
      return 'created';
    }
    if (sameValue(contentOf(rec), want) && (txt || (rec.proxied ?? false) === proxied)) return 'same';
    await cf(ctx, 'PUT', `/zones/${zone}/dns_records/${rec.id}`, body);
    return 'updated';
  },
  async list(ctx, want) {
    return (await recordsOf(ctx, await zoneId(ctx, want.domain.root), want)).map(contentOf);
  },
  async remove(ctx, want) {
    const zone = await zoneId(ctx, want.domain.root);
    for (const rec of recordsToRemove(await recordsOf(ctx, zone, want), contentOf, want)) {
      await cf(ctx, 'DELETE', `/zones/${zone}/dns_records/${rec.id}`);
    }
  },
};
