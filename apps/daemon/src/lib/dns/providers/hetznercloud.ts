/**
 * Hetzner Cloud DNS (api.hetzner.cloud, bearer token of the project): zones by name, one RRset per
 * name (`@` at the apex) and type: created with its TTL, its records replaced by the `set_records`
 * action, deleted. TXT values are quoted character-strings. A rate limit says when it resets
 * (`RateLimit-Reset`), which the registry's client waits out.
 */
import { rrsetProvider } from './generic.js';
import { rest } from './rest.js';
import { quotedValue, quoteTxt, type ProviderContext, type RecordRef } from './types.js';

const api = (ctx: ProviderContext) => rest(ctx, 'Hetzner Cloud DNS', { authorization: `Bearer ${ctx.creds.secret}` });
const setPath = (zone: string, ref: RecordRef) => `/zones/${zone}/rrsets/${encodeURIComponent(ref.domain.sub)}/${ref.type}`;
const records = (ref: RecordRef, values: string[]) => values.map((v) => ({ value: ref.type === 'TXT' ? quoteTxt(v) : v }));

export const hetznercloud = rrsetProvider<string>(
  { name: 'hetznercloud', base: 'https://api.hetzner.cloud/v1' },
  {
    zone: (ctx, d) => api(ctx).zone(`/zones/${d.root}`, d.root),
    async get(ctx, zone, ref) {
      const got = await api(ctx).find<{ rrset: { ttl: number | null; records: Array<{ value: string }> } }>('GET', setPath(zone, ref));
      return got && got.rrset.records.length ? { values: got.rrset.records.map((r) => quotedValue(ref.type, r.value)), ttl: got.rrset.ttl ?? 3600 } : null;
    },
    put: async (ctx, zone, ref, set, exists) => {
      if (exists) await api(ctx).call('POST', `${setPath(zone, ref)}/actions/set_records`, { records: records(ref, set.values) });
      else await api(ctx).call('POST', `/zones/${zone}/rrsets`, { name: ref.domain.sub, type: ref.type, ttl: set.ttl, records: records(ref, set.values) });
    },
    delete: async (ctx, zone, ref) => {
      await api(ctx).call('DELETE', setPath(zone, ref));
    },
  },
);
