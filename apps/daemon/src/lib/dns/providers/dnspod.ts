/**
 * DNSPod through Tencent Cloud API 3.0 (service `dnspod`, version 2021-03-23), signed with
 * TC3-HMAC-SHA256; the same API is Tencent Cloud DNS, listed on its own. `?RecordLine=` per domain.
 * DescribeRecordList reads, CreateRecord/ModifyRecord write, DeleteRecord removes one record.
 * A DNSPod account may instead hold a DNSPod Token (a numeric ID and the token): then its calls go
 * to DNSPod's own API (dnspodtoken.ts).
 */
import type { DdnsProviderName } from '@lucky/contracts';
import { DNSPOD_TOKEN_BASE, dnspodToken, isDnspodToken } from './dnspodtoken.js';
import { tencentCall, type TencentError } from './tencent.js';
import { pickRecord, recordsToRemove, sameValue, type DnsProvider, type ProviderContext, type RecordRef } from './types.js';

interface PodRecord {
  RecordId: number;
  Name: string;
  Type: string;
  Value: string;
  TTL: number;
  Line: string;
}

function tencentDns(name: DdnsProviderName, title: string): DnsProvider {
  const call = <T>(ctx: ProviderContext, action: string, body: Record<string, unknown>) => tencentCall<T>(ctx, { provider: title, service: 'dnspod', version: '2021-03-23', action, body });

  /** The name's records of the type; none is an error code of its own. */
  async function recordsOf(ctx: ProviderContext, want: RecordRef): Promise<PodRecord[]> {
    try {
      return (await call<{ RecordList: PodRecord[] }>(ctx, 'DescribeRecordList', { Domain: want.domain.root, Subdomain: want.domain.sub, RecordType: want.type })).RecordList;
    } catch (err) {
      if ((err as TencentError).code !== 'ResourceNotFound.NoDataOfRecord') throw err;
      return [];
    }
  }

  return {
    name,
    base: 'https://dnspod.tencentcloudapi.com',
    async set(ctx, want) {
      const d = want.domain;
      const line = d.params.RecordLine ?? '默认';
      const list = await recordsOf(ctx, want);
      const onLine = list.filter((r) => r.Line === line);
      const rec = pickRecord(onLine.length ? onLine : list, (r) => r.Value, want);
      const fields = { Domain: d.root, SubDomain: d.sub, RecordType: want.type, RecordLine: line, Value: want.value, TTL: want.ttl };
      if (!rec) {
        await call(ctx, 'CreateRecord', fields);
        return 'created';
      }
      if (sameValue(rec.Value, want)) return 'same';
      await call(ctx, 'ModifyRecord', { ...fields, RecordId: rec.RecordId });
      return 'updated';
    },
    async list(ctx, want) {
      return (await recordsOf(ctx, want)).map((r) => r.Value);
    },
    async remove(ctx, want) {
      for (const rec of recordsToRemove(await recordsOf(ctx, want), (r) => r.Value, want)) {
        await call(ctx, 'DeleteRecord', { Domain: want.domain.root, RecordId: rec.RecordId });
      }
    },
  };
}

const api3 = tencentDns('dnspod', 'DNSPod');
const pick = (ctx: ProviderContext): DnsProvider => (isDnspodToken(ctx.creds) ? dnspodToken : api3);

/** DNSPod: Tencent Cloud API 3.0 with a SecretId/SecretKey, DNSPod's own API with a DNSPod Token. */
export const dnspod: DnsProvider = {
  name: 'dnspod',
  base: api3.base,
  baseOf: (creds) => (isDnspodToken(creds) ? DNSPOD_TOKEN_BASE : api3.base),
  set: (ctx, want) => pick(ctx).set(ctx, want),
  list: (ctx, want) => pick(ctx).list!(ctx, want),
  remove: (ctx, want) => pick(ctx).remove!(ctx, want),
};
export const tencentcloud = tencentDns('tencentcloud', 'Tencent Cloud DNS');
