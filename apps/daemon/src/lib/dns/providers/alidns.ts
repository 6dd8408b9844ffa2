/**
 * Alibaba Cloud DNS (RPC API 2015-01-09), signed with HMAC-SHA1 (signature version 1.0). `?Line=` per
 * domain. Records are read with DescribeSubDomainRecords, written with AddDomainRecord and
 * UpdateDomainRecord, removed one by one with DeleteDomainRecord (DeleteSubDomainRecords for all of a type).
 */
import { aliRpc } from './alibaba.js';
import { pickRecord, recordsToRemove, sameValue, type DnsProvider, type ProviderContext, type RecordRef } from './types.js';

const call = aliRpc('AliDNS', '2015-01-09');

interface AliRecord {
  RecordId: string;
  RR: string;
  Type: string;
  Value: string;
  TTL: number;
  Line?: string;
}

async function recordsOf(ctx: ProviderContext, want: RecordRef): Promise<AliRecord[]> {
  const found = await call<{ DomainRecords: { Record: AliRecord[] } }>(ctx, 'DescribeSubDomainRecords', {
    SubDomain: want.domain.full,
    DomainName: want.domain.root,
    Type: want.type,
  });
  return found.DomainRecords.Record;
}

export const alidns: DnsProvider = {
  name: 'alidns',
  base: 'https://alidns.aliyuncs.com',
  async set(ctx, want) {
    const d = want.domain;
    const line = d.params.Line ?? 'default';
    const all = await recordsOf(ctx, want);
    const onLine = all.filter((r) => (r.Line ?? 'default') === line);
    const rec = pickRecord(onLine.length ? onLine : all, (r) => r.Value, want);
    const fields = { RR: d.sub, Type: want.type, Value: want.value, TTL: String(want.ttl), Line: line };
    if (!rec) {
      await call(ctx, 'AddDomainRecord', { DomainName: d.root, ...fields });
      return 'created';
    }
    if (sameValue(rec.Value, want)) return 'same';
    await call(ctx, 'UpdateDomainRecord', { RecordId: rec.RecordId, ...fields });
    return 'updated';
  },
  async list(ctx, want) {
    return (await recordsOf(ctx, want)).map((r) => r.Value);
  },
  async remove(ctx, want) {
    if (want.value === undefined) {
      await call(ctx, 'DeleteSubDomainRecords', { DomainName: want.domain.root, RR: want.domain.sub, Type: want.type });
      return;
    }
    for (const rec of recordsToRemove(await recordsOf(ctx, want), (r) => r.Value, want)) {
      await call(ctx, 'DeleteDomainRecord', { RecordId: rec.RecordId });
    }
  },
};
