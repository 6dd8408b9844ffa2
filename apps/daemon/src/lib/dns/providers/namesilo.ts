/**
 * NameSilo API (JSON replies; code 300 is success): dnsListRecords reads, dnsAddRecord and
 * dnsUpdateRecord write, dnsDeleteRecord removes one record by id.
 */
import { jsonOf } from '../../http/request.js';
import { pickRecord, providerError, recordsToRemove, sameValue, zoneNotFound, type DnsProvider, type ProviderContext, type RecordRef } from './types.js';

interface NsReply<T> {
  reply: T & { code: number | string; detail?: string };
}

async function call<T>(ctx: ProviderContext, op: string, params: Record<string, string>): Promise<T> {
  const qs = new URLSearchParams({ version: '1', type: 'json', key: ctx.creds.secret, ...params });
  const res = await ctx.http({ url: `${ctx.base}/api/${op}?${qs}` });
  const a = jsonOf<NsReply<T>>(res);
  // 200: the domain is not active, or not in this account.
  if (Number(a.reply?.code) === 200 && params.domain) throw zoneNotFound('NameSilo', params.domain);
  if (Number(a.reply?.code) !== 300) throw providerError('NameSilo', `${op}: ${a.reply?.code} ${a.reply?.detail ?? ''}`.trim());
  return a.reply;
}

interface NsRecord {
  record_id: string;
  type: string;
  host: string;
  value: string;
}

async function recordsOf(ctx: ProviderContext, want: RecordRef): Promise<NsRecord[]> {
  const list = await call<{ resource_record?: NsRecord[] | NsRecord }>(ctx, 'dnsListRecords', { domain: want.domain.root });
  const all = Array.isArray(list.resource_record) ? list.resource_record : list.resource_record ? [list.resource_record] : [];
  return all.filter((r) => r.type === want.type && r.host === want.domain.full);
}

export const namesilo: DnsProvider = {
  name: 'namesilo',
  base: 'https://www.namesilo.com',
  async set(ctx, want) {
    const d = want.domain;
    const rec = pickRecord(await recordsOf(ctx, want), (r) => r.value, want);
    const host = d.sub === '@' ? '' : d.sub;
    if (!rec) {
      await call(ctx, 'dnsAddRecord', { domain: d.root, rrtype: want.type, rrhost: host, rrvalue: want.value, rrttl: String(want.ttl) });
      return 'created';
    }
    if (sameValue(rec.value, want)) return 'same';
    await call(ctx, 'dnsUpdateRecord', { domain: d.root, rrid: rec.record_id, rrhost: host, rrvalue: want.value, rrttl: String(want.ttl) });
    return 'updated';
  },
  async list(ctx, want) {
    return (await recordsOf(ctx, want)).map((r) => r.value);
  },
  async remove(ctx, want) {
    for (const rec of recordsToRemove(await recordsOf(ctx, want), (r) => r.value, want)) {
      await call(ctx, 'dnsDeleteRecord', { domain: want.domain.root, rrid: rec.record_id });
    }
  },
};
