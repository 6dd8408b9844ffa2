/** NS1 API v1 (`X-NSONE-Key`): one record per zone, full name and type, its answers the values; created with PUT, changed with POST. */
import { rrsetProvider } from './generic.js';
import { rest } from './rest.js';
import type { ProviderContext, RecordRef } from './types.js';

const api = (ctx: ProviderContext) => rest(ctx, 'NS1', { 'X-NSONE-Key': ctx.creds.secret });
const setPath = (ref: RecordRef) => `/zones/${ref.domain.root}/${ref.domain.full}/${ref.type}`;

export const ns1 = rrsetProvider<string>(
  { name: 'ns1', base: 'https://api.nsone.net/v1' },
  {
    zone: (ctx, d) => api(ctx).zone(`/zones/${d.root}`, d.root),
    async get(ctx, _zone, ref) {
      const rec = await api(ctx).find<{ ttl: number; answers: Array<{ answer: unknown[] }> }>('GET', setPath(ref));
      return rec && { values: rec.answers.map((a) => String(a.answer[0])), ttl: rec.ttl };
    },
    put: async (ctx, _zone, ref, set, exists) => {
      const answers = set.values.map((v) => ({ answer: [v] }));
      await api(ctx).call(exists ? 'POST' : 'PUT', setPath(ref), { zone: ref.domain.root, domain: ref.domain.full, type: ref.type, ttl: set.ttl, answers });
    },
    delete: async (ctx, _zone, ref) => {
      await api(ctx).call('DELETE', setPath(ref));
    },
  },
);
