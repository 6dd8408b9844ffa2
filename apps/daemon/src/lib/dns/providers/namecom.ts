/** Name.com API v4 (basic auth: user name and API token): the domain's records, matched by FQDN and type, written by id (`host` '' at the apex). */
import { recordsProvider } from './generic.js';
import { rest } from './rest.js';
import { basicAuth, relativeName, type ProviderContext } from './types.js';

interface NcRecord {
  id: number;
  fqdn: string;
  type: string;
  answer: string;
}

const api = (ctx: ProviderContext) => rest(ctx, 'Name.com', { authorization: basicAuth(ctx.creds) });

export const namecom = recordsProvider<string, NcRecord>(
  { name: 'namecom', base: 'https://api.name.com/v4' },
  {
    zone: (ctx, d) => api(ctx).zone(`/domains/${d.root}`, d.root),
    async list(ctx, zone, ref) {
      const { records } = await api(ctx).call<{ records?: NcRecord[] }>('GET', `/domains/${zone}/records?perPage=1000`);
      return (records ?? []).filter((r) => r.fqdn === `${ref.domain.full}.` && r.type === ref.type);
    },
    valueOf: (r) => r.answer,
    create: async (ctx, zone, want) => {
      await api(ctx).call('POST', `/domains/${zone}/records`, { host: relativeName(want.domain), type: want.type, answer: want.value, ttl: want.ttl });
    },
    update: async (ctx, zone, rec, want) => {
      await api(ctx).call('PUT', `/domains/${zone}/records/${rec.id}`, { host: relativeName(want.domain), type: want.type, answer: want.value, ttl: want.ttl });
    },
    delete: async (ctx, zone, rec) => {
      await api(ctx).call('DELETE', `/domains/${zone}/records/${rec.id}`);
    },
  },
);
