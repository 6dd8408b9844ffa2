/**
 * Dynu API v2 (`API-Key` header). The zone is the account's domain the name ends in (Dynu's own
 * host names, `home.ddnsfree.com`, are domains of the account too); records by id under it, the
 * value in `ipv4Address`, `ipv6Address` or `textData` by type.
 */
import { recordsProvider } from './generic.js';
import { rest } from './rest.js';
import { zoneNotFound, type ProviderContext, type BasicRecordType } from './types.js';

interface DynuRecord {
  id: number;
  nodeName: string;
  recordType: string;
  ipv4Address?: string;
  ipv6Address?: string;
  textData?: string;
}

const api = (ctx: ProviderContext) => rest(ctx, 'Dynu', { 'API-Key': ctx.creds.secret });
const FIELD: Record<BasicRecordType, 'ipv4Address' | 'ipv6Address' | 'textData'> = { A: 'ipv4Address', AAAA: 'ipv6Address', TXT: 'textData' };

export const dynu = recordsProvider<{ id: number; node: string }, DynuRecord>(
  { name: 'dynu', base: 'https://api.dynu.com/v2' },
  {
    async zone(ctx, d) {
      const { domains } = await api(ctx).call<{ domains: Array<{ id: number; name: string }> }>('GET', '/dns');
      const zone = domains.filter((z) => d.full === z.name || d.full.endsWith(`.${z.name}`)).sort((a, b) => b.name.length - a.name.length)[0];
      if (!zone) throw zoneNotFound('Dynu', d.root);
      return { id: zone.id, node: d.full === zone.name ? '' : d.full.slice(0, -zone.name.length - 1) };
    },
    async list(ctx, zone, ref) {
      const { dnsRecords } = await api(ctx).call<{ dnsRecords: DynuRecord[] }>('GET', `/dns/${zone.id}/record`);
      return dnsRecords.filter((r) => r.nodeName === zone.node && r.recordType === ref.type);
    },
    valueOf: (r) => r[FIELD[r.recordType as BasicRecordType]] ?? '',
    create: async (ctx, zone, want) => {
      await api(ctx).call('POST', `/dns/${zone.id}/record`, { nodeName: zone.node, recordType: want.type, ttl: want.ttl, state: true, group: '', [FIELD[want.type as BasicRecordType]]: want.value });
    },
    update: async (ctx, zone, rec, want) => {
      await api(ctx).call('POST', `/dns/${zone.id}/record/${rec.id}`, { nodeName: zone.node, recordType: want.type, ttl: want.ttl, state: true, group: '', [FIELD[want.type as BasicRecordType]]: want.value });
    },
    delete: async (ctx, zone, rec) => {
      await api(ctx).call('DELETE', `/dns/${zone.id}/record/${rec.id}`);
    },
  },
);
