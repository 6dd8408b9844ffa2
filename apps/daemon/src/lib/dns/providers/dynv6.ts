/**
 * dynv6 REST API v2 (`Authorization: Bearer` with the HTTP token; the same token its update URL
 * takes). The zone is the account's zone the name ends in (the longest: `myhome.dynv6.net`, or a
 * domain of one's own); records below the zone apex by id (`name` relative to the zone). The apex's
 * own A and AAAA are the zone's `ipv4address` and `ipv6prefix`, read and written on the zone itself
 * (`PATCH /zones/{id}`; an empty value clears one); TXT at the apex is a record named ''.
 */
import { recordsProvider } from './generic.js';
import { rest } from './rest.js';
import { zoneNotFound, type ProviderContext, type RecordRef } from './types.js';

interface Dv6Zone {
  id: number;
  name: string;
  ipv4address?: string;
  ipv6prefix?: string;
}

/** A record of the zone, or (no id) the apex address the zone itself holds. */
interface Dv6Record {
  id?: number;
  type: string;
  name: string;
  data: string;
}

const api = (ctx: ProviderContext) => rest(ctx, 'Dynv6', { authorization: `Bearer ${ctx.creds.secret}` });
const relative = (zone: Dv6Zone, ref: RecordRef) => (ref.domain.full === zone.name ? '' : ref.domain.full.slice(0, -zone.name.length - 1));
/** The zone field holding the apex address of the type, for A/AAAA at the apex. */
const apexField = (zone: Dv6Zone, ref: RecordRef) => (ref.type !== 'TXT' && ref.domain.full === zone.name ? (ref.type === 'A' ? 'ipv4address' : 'ipv6prefix') : null);

export const dynv6 = recordsProvider<Dv6Zone, Dv6Record>(
  { name: 'dynv6', base: 'https://dynv6.com/api/v2' },
  {
    async zone(ctx, d) {
      const zones = await api(ctx).call<Dv6Zone[]>('GET', '/zones');
      const mine = zones.filter((z) => d.full === z.name || d.full.endsWith(`.${z.name}`)).sort((a, b) => b.name.length - a.name.length);
      if (!mine[0]) throw zoneNotFound('Dynv6', d.root);
      return mine[0];
    },
    async list(ctx, zone, ref) {
      const field = apexField(zone, ref);
      if (field) {
        const value = zone[field] ?? '';
        return value ? [{ type: ref.type, name: '', data: value }] : [];
      }
      const records = await api(ctx).call<Dv6Record[]>('GET', `/zones/${zone.id}/records`);
      return records.filter((r) => r.name === relative(zone, ref) && r.type === ref.type);
    },
    valueOf: (r) => r.data,
    create: async (ctx, zone, want) => {
      const field = apexField(zone, want);
      if (field) await api(ctx).call('PATCH', `/zones/${zone.id}`, { [field]: want.value });
      else await api(ctx).call('POST', `/zones/${zone.id}/records`, { name: relative(zone, want), type: want.type, data: want.value });
    },
    update: async (ctx, zone, rec, want) => {
      const field = apexField(zone, want);
      if (field) await api(ctx).call('PATCH', `/zones/${zone.id}`, { [field]: want.value });
      else await api(ctx).call('PATCH', `/zones/${zone.id}/records/${rec.id}`, { name: relative(zone, want), type: want.type, data: want.value });
    },
    delete: async (ctx, zone, rec, ref) => {
      const field = apexField(zone, ref);
      if (field) await api(ctx).call('PATCH', `/zones/${zone.id}`, { [field]: '' });
      else await api(ctx).call('DELETE', `/zones/${zone.id}/records/${rec.id}`);
    },
  },
);
