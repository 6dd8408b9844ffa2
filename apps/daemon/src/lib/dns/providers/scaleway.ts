/**
 * Scaleway Domains and DNS API (`X-Auth-Token`: an API key's secret key): a zone's records read by
 * name and type; written with one PATCH of the zone's `changes` (`add`, `set` by id, `delete` by id).
 * Names are relative ('' at the apex); TXT data is quoted, read with or without quotes.
 */
import { recordsProvider } from './generic.js';
import { rest } from './rest.js';
import { quotedValue, quoteTxt, relativeName, zoneNotFound, type ProviderContext, type RecordWant } from './types.js';

interface ScwRecord {
  id: string;
  type: string;
  name: string;
  data: string;
  ttl: number;
}

const api = (ctx: ProviderContext) => rest(ctx, 'Scaleway', { 'x-auth-token': ctx.creds.secret });
const record = (want: RecordWant) => ({ name: relativeName(want.domain), type: want.type, data: want.type === 'TXT' ? quoteTxt(want.value) : want.value, ttl: want.ttl });
const change = (ctx: ProviderContext, zone: string, c: unknown) => api(ctx).call('PATCH', `/dns-zones/${zone}/records`, { changes: [c], return_all_records: false });

export const scaleway = recordsProvider<string, ScwRecord>(
  { name: 'scaleway', base: 'https://api.scaleway.com/domain/v2beta1' },
  {
    zone: async (_ctx, d) => d.root,
    async list(ctx, zone, ref) {
      const q = new URLSearchParams({ name: relativeName(ref.domain), type: ref.type, page_size: '100' });
      const found = await api(ctx).find<{ records: ScwRecord[] }>('GET', `/dns-zones/${zone}/records?${q}`);
      if (!found) throw zoneNotFound('Scaleway', zone);
      return found.records.filter((r) => r.type === ref.type && r.name === relativeName(ref.domain));
    },
    valueOf: (r) => quotedValue(r.type, r.data),
    create: async (ctx, zone, want) => {
      await change(ctx, zone, { add: { records: [record(want)] } });
    },
    update: async (ctx, zone, rec, want) => {
      await change(ctx, zone, { set: { id: rec.id, records: [record(want)] } });
    },
    delete: async (ctx, zone, rec) => {
      await change(ctx, zone, { delete: { id: rec.id } });
    },
  },
);
