/** Gcore DNS API v2 (`Authorization: APIKey <token>`): one RRset per full name and type (`/zones/{zone}/{name}/{type}`), values in `resource_records[].content[0]`. */
import { rrsetProvider } from './generic.js';
import { rest } from './rest.js';
import type { ProviderContext, RecordRef } from './types.js';

const api = (ctx: ProviderContext) => rest(ctx, 'Gcore', { authorization: `APIKey ${ctx.creds.secret}` });
const setPath = (ref: RecordRef) => `/zones/${ref.domain.root}/${ref.domain.full}/${ref.type}`;
const body = (values: string[], ttl: number) => ({ ttl, resource_records: values.map((v) => ({ content: [v], enabled: true })) });

export const gcore = rrsetProvider<string>(
  { name: 'gcore', base: 'https://api.gcore.com/dns/v2' },
  {
    zone: (ctx, d) => api(ctx).zone(`/zones/${d.root}`, d.root),
    async get(ctx, _zone, ref) {
      const set = await api(ctx).find<{ ttl: number; resource_records: Array<{ content: unknown[] }> }>('GET', setPath(ref));
      return set && { values: set.resource_records.map((r) => String(r.content[0])), ttl: set.ttl };
    },
    put: async (ctx, _zone, ref, set, exists) => {
      await api(ctx).call(exists ? 'PUT' : 'POST', setPath(ref), body(set.values, set.ttl));
    },
    delete: async (ctx, _zone, ref) => {
      await api(ctx).call('DELETE', setPath(ref));
    },
  },
);
