/**
 * Bunny DNS (api.bunny.net, `AccessKey` header): the zone found by name (`?search=`), its records
 * read with the zone, added with PUT, changed with POST and deleted by id. Record types are numbers
 * in this API (A 0, AAAA 1, TXT 3); names are relative, '' at the apex.
 */
import { recordsProvider } from './generic.js';
import { rest } from './rest.js';
import { relativeName, zoneNamed, type ProviderContext, type RecordWant } from './types.js';

interface BunnyRecord {
  Id: number;
  Type: number;
  Name: string;
  Value: string;
  Ttl: number;
}

const TYPE_CODE: Record<string, number> = { A: 0, AAAA: 1, TXT: 3 };
const api = (ctx: ProviderContext) => rest(ctx, 'Bunny DNS', { accesskey: ctx.creds.secret });
const body = (want: RecordWant) => ({ Type: TYPE_CODE[want.type], Name: relativeName(want.domain), Value: want.value, Ttl: want.ttl });

export const bunny = recordsProvider<number, BunnyRecord>(
  { name: 'bunny', base: 'https://api.bunny.net' },
  {
    async zone(ctx, d) {
      const { Items } = await api(ctx).call<{ Items: Array<{ Id: number; Domain: string }> }>('GET', `/dnszone?search=${encodeURIComponent(d.root)}&perPage=1000`);
      return zoneNamed(Items, (z) => z.Domain.toLowerCase(), 'Bunny DNS', d.root).Id;
    },
    async list(ctx, zone, ref) {
      const { Records } = await api(ctx).call<{ Records: BunnyRecord[] }>('GET', `/dnszone/${zone}`);
      return Records.filter((r) => r.Type === TYPE_CODE[ref.type] && r.Name.toLowerCase() === relativeName(ref.domain));
    },
    valueOf: (r) => r.Value,
    create: async (ctx, zone, want) => {
      await api(ctx).call('PUT', `/dnszone/${zone}/records`, body(want));
    },
    update: async (ctx, zone, rec, want) => {
      await api(ctx).call('POST', `/dnszone/${zone}/records/${rec.Id}`, { Id: rec.Id, ...body(want) });
    },
    delete: async (ctx, zone, rec) => {
      await api(ctx).call('DELETE', `/dnszone/${zone}/records/${rec.Id}`);
    },
  },
);
