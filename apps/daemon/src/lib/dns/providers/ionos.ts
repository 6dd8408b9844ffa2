/**
 * IONOS DNS API (`X-API-Key`: the key's public prefix and secret joined by a dot): the zone found
 * by name in the account's list, its records read filtered by name and type (`name` the full name),
 * added (a list of one), changed and deleted by id. TXT is sent as the text and answered quoted: read
 * either way. Its smallest TTL is 300.
 */
import { recordsProvider } from './generic.js';
import { rest } from './rest.js';
import { quotedValue, zoneNamed, type ProviderContext } from './types.js';

interface IonosRecord {
  id: string;
  name: string;
  type: string;
  content: string;
  ttl: number;
}

const api = (ctx: ProviderContext) => rest(ctx, 'IONOS', { 'x-api-key': ctx.creds.secret });

export const ionos = recordsProvider<string, IonosRecord>(
  { name: 'ionos', base: 'https://api.hosting.ionos.com/dns/v1' },
  {
    async zone(ctx, d) {
      const zones = await api(ctx).call<Array<{ id: string; name: string }>>('GET', '/zones');
      return zoneNamed(zones, (z) => z.name, 'IONOS', d.root).id;
    },
    async list(ctx, zone, ref) {
      const q = new URLSearchParams({ recordName: ref.domain.full, recordType: ref.type });
      const { records } = await api(ctx).call<{ records?: IonosRecord[] }>('GET', `/zones/${zone}?${q}`);
      return (records ?? []).filter((r) => r.type === ref.type && r.name === ref.domain.full);
    },
    valueOf: (r) => quotedValue(r.type, r.content),
    create: async (ctx, zone, want) => {
      await api(ctx).call('POST', `/zones/${zone}/records`, [{ name: want.domain.full, type: want.type, content: want.value, ttl: want.ttl, disabled: false }]);
    },
    update: async (ctx, zone, rec, want) => {
      await api(ctx).call('PUT', `/zones/${zone}/records/${rec.id}`, { content: want.value, ttl: want.ttl, disabled: false });
    },
    delete: async (ctx, zone, rec) => {
      await api(ctx).call('DELETE', `/zones/${zone}/records/${rec.id}`);
    },
  },
);
