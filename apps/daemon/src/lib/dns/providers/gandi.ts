/**
 * Gandi LiveDNS API v5 (personal access token as a bearer): one record set per name and type
 * (`/domains/{fqdn}/records/{name}/{type}`, `@` at the apex), TXT values as quoted strings.
 */
import { rrsetProvider } from './generic.js';
import { rest } from './rest.js';
import { quotedValue, quoteTxt, type ProviderContext, type RecordRef } from './types.js';

const api = (ctx: ProviderContext) => rest(ctx, 'Gandi', { authorization: `Bearer ${ctx.creds.secret}` });
const setPath = (ref: RecordRef) => `/domains/${ref.domain.root}/records/${encodeURIComponent(ref.domain.sub)}/${ref.type}`;

export const gandi = rrsetProvider<string>(
  { name: 'gandi', base: 'https://api.gandi.net/v5/livedns' },
  {
    zone: (ctx, d) => api(ctx).zone(`/domains/${d.root}`, d.root),
    async get(ctx, _zone, ref) {
      const set = await api(ctx).find<{ rrset_values: string[]; rrset_ttl: number }>('GET', setPath(ref));
      return set && { values: set.rrset_values.map((v) => quotedValue(ref.type, v)), ttl: set.rrset_ttl };
    },
    put: async (ctx, _zone, ref, set) => {
      await api(ctx).call('PUT', setPath(ref), { rrset_values: set.values.map((v) => (ref.type === 'TXT' ? quoteTxt(v) : v)), rrset_ttl: set.ttl });
    },
    delete: async (ctx, _zone, ref) => {
      await api(ctx).call('DELETE', setPath(ref));
    },
  },
);
