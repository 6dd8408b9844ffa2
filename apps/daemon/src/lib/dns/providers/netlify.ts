/**
 * Netlify DNS (bearer personal access token): the zone by its id, the domain with `_` for `.`
 * (`example_com`); its records listed (`hostname` is the full name), added and deleted by id. The
 * API has no update: a change deletes the old record and adds the new.
 */
import { recordsProvider } from './generic.js';
import { rest } from './rest.js';
import type { ProviderContext, RecordWant } from './types.js';

interface NetlifyRecord {
  id: string;
  type: string;
  hostname: string;
  value: string;
  ttl: number;
}

const api = (ctx: ProviderContext) => rest(ctx, 'Netlify', { authorization: `Bearer ${ctx.creds.secret}` });
const add = (ctx: ProviderContext, zone: string, want: RecordWant) => api(ctx).call('POST', `/dns_zones/${zone}/dns_records`, { type: want.type, hostname: want.domain.full, value: want.value, ttl: want.ttl });

export const netlify = recordsProvider<string, NetlifyRecord>(
  { name: 'netlify', base: 'https://api.netlify.com/api/v1' },
  {
    async zone(ctx, d) {
      const id = d.root.replaceAll('.', '_');
      await api(ctx).zone(`/dns_zones/${id}`, d.root);
      return id;
    },
    async list(ctx, zone, ref) {
      const records = await api(ctx).call<NetlifyRecord[]>('GET', `/dns_zones/${zone}/dns_records`);
      return records.filter((r) => r.type === ref.type && r.hostname === ref.domain.full);
    },
    valueOf: (r) => r.value,
    create: async (ctx, zone, want) => {
      await add(ctx, zone, want);
    },
    update: async (ctx, zone, rec, want) => {
      await api(ctx).call('DELETE', `/dns_zones/${zone}/dns_records/${rec.id}`);
      await add(ctx, zone, want);
    },
    delete: async (ctx, zone, rec) => {
      await api(ctx).call('DELETE', `/dns_zones/${zone}/dns_records/${rec.id}`);
    },
  },
);
