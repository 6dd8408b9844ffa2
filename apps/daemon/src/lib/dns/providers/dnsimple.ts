/**
 * DNSimple API v2 (bearer token; `id` is the account id): the zone checked, its records filtered by
 * name and type, written by id (`name` relative, '' at the apex). Its rate limit answers 429 with
 * `X-RateLimit-Reset`, which the registry's client waits out.
 */
import { recordsProvider } from './generic.js';
import { rest } from './rest.js';
import { relativeName, type ProviderContext } from './types.js';

interface DnsimpleRecord {
  id: number;
  type: string;
  name: string;
  content: string;
  ttl: number;
}

const api = (ctx: ProviderContext) => rest(ctx, 'DNSimple', { authorization: `Bearer ${ctx.creds.secret}` });
const zonePath = (ctx: ProviderContext, zone: string) => `/${encodeURIComponent(ctx.creds.id)}/zones/${zone}`;

export const dnsimple = recordsProvider<string, DnsimpleRecord>(
  { name: 'dnsimple', base: 'https://api.dnsimple.com/v2' },
  {
    zone: (ctx, d) => api(ctx).zone(zonePath(ctx, d.root), d.root),
    async list(ctx, zone, ref) {
      const q = new URLSearchParams({ name: relativeName(ref.domain), type: ref.type, per_page: '100' });
      const { data } = await api(ctx).call<{ data: DnsimpleRecord[] }>('GET', `${zonePath(ctx, zone)}/records?${q}`);
      return data.filter((r) => r.type === ref.type && r.name === relativeName(ref.domain));
    },
    valueOf: (r) => r.content,
    create: async (ctx, zone, want) => {
      await api(ctx).call('POST', `${zonePath(ctx, zone)}/records`, { name: relativeName(want.domain), type: want.type, content: want.value, ttl: want.ttl });
    },
    update: async (ctx, zone, rec, want) => {
      await api(ctx).call('PATCH', `${zonePath(ctx, zone)}/records/${rec.id}`, { content: want.value, ttl: want.ttl });
    },
    delete: async (ctx, zone, rec) => {
      await api(ctx).call('DELETE', `${zonePath(ctx, zone)}/records/${rec.id}`);
    },
  },
);
