/** Linode (Akamai) API v4 (bearer token): the domain found with an `X-Filter`, its records by id (`name` relative, '' at the apex). */
import { recordsProvider } from './generic.js';
import { rest } from './rest.js';
import { relativeName, zoneNamed, type ProviderContext } from './types.js';

interface LinodeRecord {
  id: number;
  type: string;
  name: string;
  target: string;
}

const api = (ctx: ProviderContext, headers: Record<string, string> = {}) => rest(ctx, 'Linode', { authorization: `Bearer ${ctx.creds.secret}`, ...headers });

export const linode = recordsProvider<number, LinodeRecord>(
  { name: 'linode', base: 'https://api.linode.com/v4' },
  {
    async zone(ctx, d) {
      const { data } = await api(ctx, { 'X-Filter': JSON.stringify({ domain: d.root }) }).call<{ data: Array<{ id: number; domain: string }> }>('GET', '/domains');
      return zoneNamed(data, (z) => z.domain, 'Linode', d.root).id;
    },
    async list(ctx, zone, ref) {
      const { data } = await api(ctx).call<{ data: LinodeRecord[] }>('GET', `/domains/${zone}/records?page_size=500`);
      return data.filter((r) => r.name === relativeName(ref.domain) && r.type === ref.type);
    },
    valueOf: (r) => r.target,
    create: async (ctx, zone, want) => {
      await api(ctx).call('POST', `/domains/${zone}/records`, { type: want.type, name: relativeName(want.domain), target: want.value, ttl_sec: want.ttl });
    },
    update: async (ctx, zone, rec, want) => {
      await api(ctx).call('PUT', `/domains/${zone}/records/${rec.id}`, { target: want.value, ttl_sec: want.ttl });
    },
    delete: async (ctx, zone, rec) => {
      await api(ctx).call('DELETE', `/domains/${zone}/records/${rec.id}`);
    },
  },
);
