/** DigitalOcean API v2 (bearer token): the zone is the domain, records filtered by full name and type, written by id. */
import { recordsProvider } from './generic.js';
import { rest } from './rest.js';
import type { ProviderContext } from './types.js';

interface DoRecord {
  id: number;
  type: string;
  name: string;
  data: string;
  ttl: number;
}

const api = (ctx: ProviderContext) => rest(ctx, 'DigitalOcean', { authorization: `Bearer ${ctx.creds.secret}` });

export const digitalocean = recordsProvider<string, DoRecord>(
  { name: 'digitalocean', base: 'https://api.digitalocean.com/v2' },
  {
    zone: (ctx, d) => api(ctx).zone(`/domains/${d.root}`, d.root),
    async list(ctx, zone, ref) {
      const q = new URLSearchParams({ type: ref.type, name: ref.domain.full, per_page: '200' });
      return (await api(ctx).call<{ domain_records: DoRecord[] }>('GET', `/domains/${zone}/records?${q}`)).domain_records;
    },
    valueOf: (r) => r.data,
    create: async (ctx, zone, want) => {
      await api(ctx).call('POST', `/domains/${zone}/records`, { type: want.type, name: want.domain.sub, data: want.value, ttl: want.ttl });
    },
    update: async (ctx, zone, rec, want) => {
      await api(ctx).call('PUT', `/domains/${zone}/records/${rec.id}`, { type: want.type, name: want.domain.sub, data: want.value, ttl: want.ttl });
    },
    delete: async (ctx, zone, rec) => {
      await api(ctx).call('DELETE', `/domains/${zone}/records/${rec.id}`);
    },
  },
);
