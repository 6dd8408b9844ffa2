/**
 * Mythic Beasts DNS API v2 (HTTP basic auth with an API key id and secret): one set of records per
 * zone, host (`@` at the apex) and type: read with GET, replaced whole with PUT, deleted with DELETE
 * (`?data=` deletes only the records holding that value). A zone the key may not use is 403/404.
 */
import { rrsetProvider } from './generic.js';
import { rest } from './rest.js';
import { basicAuth, zoneNotFound, type ProviderContext, type RecordRef } from './types.js';

interface MbRecord {
  host: string;
  type: string;
  data: string;
  ttl: number;
}

const api = (ctx: ProviderContext) => rest(ctx, 'Mythic Beasts', { authorization: basicAuth(ctx.creds) });
const setPath = (ref: RecordRef) => `/zones/${ref.domain.root}/records/${encodeURIComponent(ref.domain.sub)}/${ref.type}`;

export const mythicbeasts = rrsetProvider<string>(
  { name: 'mythicbeasts', base: 'https://api.mythic-beasts.com/dns/v2' },
  {
    zone: async (_ctx, d) => d.root,
    async get(ctx, _zone, ref) {
      const got = await api(ctx).find<{ records: MbRecord[] }>('GET', setPath(ref));
      if (!got) throw zoneNotFound('Mythic Beasts', ref.domain.root);
      const recs = got.records.filter((r) => r.type === ref.type && r.host === ref.domain.sub);
      return recs.length ? { values: recs.map((r) => r.data), ttl: recs[0]!.ttl } : null;
    },
    put: async (ctx, _zone, ref, set) => {
      await api(ctx).call('PUT', setPath(ref), { records: set.values.map((data) => ({ host: ref.domain.sub, type: ref.type, ttl: set.ttl, data })) });
    },
    delete: async (ctx, _zone, ref) => {
      await api(ctx).call('DELETE', setPath(ref));
    },
  },
);
