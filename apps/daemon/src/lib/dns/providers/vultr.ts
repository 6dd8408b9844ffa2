/**
 * Vultr API v2 (bearer API key): the domain checked, its records listed and written by id (`name`
 * relative, '' at the apex). TXT data is kept quoted, as Vultr shows it; read with or without quotes.
 */
import { recordsProvider } from './generic.js';
import { rest } from './rest.js';
import { quotedValue, quoteTxt, relativeName, type ProviderContext, type RecordWant } from './types.js';

interface VultrRecord {
  id: string;
  type: string;
  name: string;
  data: string;
  ttl: number;
}

const api = (ctx: ProviderContext) => rest(ctx, 'Vultr', { authorization: `Bearer ${ctx.creds.secret}` });
const data = (want: RecordWant) => (want.type === 'TXT' ? quoteTxt(want.value) : want.value);

export const vultr = recordsProvider<string, VultrRecord>(
  { name: 'vultr', base: 'https://api.vultr.com/v2' },
  {
    zone: (ctx, d) => api(ctx).zone(`/domains/${d.root}`, d.root),
    async list(ctx, zone, ref) {
      const { records } = await api(ctx).call<{ records: VultrRecord[] }>('GET', `/domains/${zone}/records?per_page=500`);
      return records.filter((r) => r.type === ref.type && r.name === relativeName(ref.domain));
    },
    valueOf: (r) => quotedValue(r.type, r.data),
    create: async (ctx, zone, want) => {
      await api(ctx).call('POST', `/domains/${zone}/records`, { type: want.type, name: relativeName(want.domain), data: data(want), ttl: want.ttl });
    },
    update: async (ctx, zone, rec, want) => {
      await api(ctx).call('PATCH', `/domains/${zone}/records/${rec.id}`, { name: relativeName(want.domain), data: data(want), ttl: want.ttl });
    },
    delete: async (ctx, zone, rec) => {
      await api(ctx).call('DELETE', `/domains/${zone}/records/${rec.id}`);
    },
  },
);
