/**
 * Hetzner DNS API (`Auth-API-Token`): the zone found by name, its records listed and written by id
 * (`name` relative, `@` at the apex). TXT values are sent as they are and read with or without quotes.
 */
import { recordsProvider } from './generic.js';
import { rest } from './rest.js';
import { quotedValue, zoneNamed, type ProviderContext } from './types.js';

interface HzRecord {
  id: string;
  type: string;
  name: string;
  value: string;
}

const api = (ctx: ProviderContext) => rest(ctx, 'Hetzner', { 'Auth-API-Token': ctx.creds.secret });

export const hetzner = recordsProvider<string, HzRecord>(
  { name: 'hetzner', base: 'https://dns.hetzner.com/api/v1' },
  {
    async zone(ctx, d) {
      const found = await api(ctx).find<{ zones: Array<{ id: string; name: string }> }>('GET', `/zones?name=${encodeURIComponent(d.root)}`);
      return zoneNamed(found?.zones, (z) => z.name, 'Hetzner', d.root).id;
    },
    async list(ctx, zone, ref) {
      const { records } = await api(ctx).call<{ records: HzRecord[] }>('GET', `/records?zone_id=${encodeURIComponent(zone)}`);
      return records.filter((r) => r.name === ref.domain.sub && r.type === ref.type);
    },
    valueOf: (r) => quotedValue(r.type, r.value),
    create: async (ctx, zone, want) => {
      await api(ctx).call('POST', '/records', { zone_id: zone, type: want.type, name: want.domain.sub, value: want.value, ttl: want.ttl });
    },
    update: async (ctx, zone, rec, want) => {
      await api(ctx).call('PUT', `/records/${rec.id}`, { zone_id: zone, type: want.type, name: want.domain.sub, value: want.value, ttl: want.ttl });
    },
    delete: async (ctx, _zone, rec) => {
      await api(ctx).call('DELETE', `/records/${rec.id}`);
    },
  },
);
