/**
 * LuaDNS REST API v1 (HTTP basic auth with the account's email and API token; JSON asked for with
 * `Accept`): the zone found by name, its records (absolute names with the trailing dot) written by id.
 */
import { recordsProvider } from './generic.js';
import { rest } from './rest.js';
import { basicAuth, zoneNamed, type ProviderContext, type RecordWant } from './types.js';

interface LuaRecord {
  id: number;
  name: string;
  type: string;
  content: string;
  ttl: number;
}

const api = (ctx: ProviderContext) => rest(ctx, 'LuaDNS', { authorization: basicAuth(ctx.creds) });
const body = (want: RecordWant) => ({ name: `${want.domain.full}.`, type: want.type, content: want.value, ttl: want.ttl });

export const luadns = recordsProvider<number, LuaRecord>(
  { name: 'luadns', base: 'https://api.luadns.com/v1' },
  {
    async zone(ctx, d) {
      const zones = await api(ctx).call<Array<{ id: number; name: string }>>('GET', '/zones');
      return zoneNamed(zones, (z) => z.name, 'LuaDNS', d.root).id;
    },
    async list(ctx, zone, ref) {
      const records = await api(ctx).call<LuaRecord[]>('GET', `/zones/${zone}/records`);
      return records.filter((r) => r.type === ref.type && r.name === `${ref.domain.full}.`);
    },
    valueOf: (r) => r.content,
    create: async (ctx, zone, want) => {
      await api(ctx).call('POST', `/zones/${zone}/records`, body(want));
    },
    update: async (ctx, zone, rec, want) => {
      await api(ctx).call('PUT', `/zones/${zone}/records/${rec.id}`, body(want));
    },
    delete: async (ctx, zone, rec) => {
      await api(ctx).call('DELETE', `/zones/${zone}/records/${rec.id}`);
    },
  },
);
