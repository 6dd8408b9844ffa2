/**
 * Tencent Cloud EdgeOne (API 3.0, service teo, version 2022-09-01, TC3-HMAC-SHA256): the site
 * (zone) found by name, its DNS records filtered by full name and type, written by id.
 */
import { recordsProvider } from './generic.js';
import { tencentCall } from './tencent.js';
import { zoneNamed, type ProviderContext } from './types.js';

const call = <T>(ctx: ProviderContext, action: string, body: Record<string, unknown>) => tencentCall<T>(ctx, { provider: 'EdgeOne', service: 'teo', version: '2022-09-01', action, body });

interface EoRecord {
  RecordId: string;
  Name: string;
  Type: string;
  Content: string;
}

export const edgeone = recordsProvider<string, EoRecord>(
  { name: 'edgeone', base: 'https://teo.tencentcloudapi.com' },
  {
    async zone(ctx, d) {
      const { Zones } = await call<{ Zones: Array<{ ZoneId: string; ZoneName: string }> }>(ctx, 'DescribeZones', { Filters: [{ Name: 'zone-name', Values: [d.root] }] });
      return zoneNamed(Zones, (z) => z.ZoneName, 'EdgeOne', d.root).ZoneId;
    },
    async list(ctx, zone, ref) {
      const filters = [
        { Name: 'name', Values: [ref.domain.full] },
        { Name: 'type', Values: [ref.type] },
      ];
      const { DnsRecords } = await call<{ DnsRecords: EoRecord[] }>(ctx, 'DescribeDnsRecords', { ZoneId: zone, Filters: filters, Limit: 1000 });
      return DnsRecords.filter((r) => r.Name === ref.domain.full && r.Type === ref.type);
    },
    valueOf: (r) => r.Content,
    create: async (ctx, zone, want) => {
      await call(ctx, 'CreateDnsRecord', { ZoneId: zone, Name: want.domain.full, Type: want.type, Content: want.value, TTL: want.ttl });
    },
    update: async (ctx, zone, rec, want) => {
      await call(ctx, 'ModifyDnsRecords', { ZoneId: zone, DnsRecords: [{ RecordId: rec.RecordId, Name: want.domain.full, Type: want.type, Content: want.value, TTL: want.ttl }] });
    },
    delete: async (ctx, zone, rec) => {
      await call(ctx, 'DeleteDnsRecords', { ZoneId: zone, RecordIds: [rec.RecordId] });
    },
  },
);
