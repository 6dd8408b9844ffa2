/** NameSilo API (JSON replies; code 300 is success). */
import { jsonOf } from '../../http/request.js';
import { providerError, sameValue, type DnsProvider, type ProviderContext } from './types.js';

interface NsReply<T> {
  reply: T & { code: number | string; detail?: string };
}

async function call<T>(ctx: ProviderContext, op: string, params: Record<string, string>): Promise<T> {
  const qs = new URLSearchParams({ version: '1', type: 'json', key: ctx.creds.secret, ...params });
  const res = await ctx.http({ url: `${ctx.base}/api/${op}?${qs}` });
  const a = jsonOf<NsReply<T>>(res);
  if (Number(a.reply?.code) !== 300) throw providerError('NameSilo', `${op}: ${a.reply?.code} ${a.reply?.detail ?? ''}`.trim());
  return a.reply;
}

export const namesilo: DnsProvider = {
  name: 'namesilo',
  base: 'https://www.namesilo.com',
  canRead: true,
  async set(ctx, want) {
    const d = want.domain;
    const list = await call<{ resource_record?: Array<{ record_id: string; type: string; host: string; value: string }> | { record_id: string; type: string; host: string; value: string } }>(
      ctx,
      'dnsListRecords',
      { domain: d.root },
    );
    const all = Array.isArray(list.resource_record) ? list.resource_record : list.resource_record ? [list.resource_record] : [];
    const rec = all.find((r) => r.type === want.type && r.host === d.full);
    const host = d.sub === '@' ? '' : d.sub;
    if (!rec) {
      await call(ctx, 'dnsAddRecord', { domain: d.root, rrtype: want.type, rrhost: host, rrvalue: want.value, rrttl: String(want.ttl) });
      return 'created';
    }
    if (sameValue(rec.value, want)) return 'same';
    await call(ctx, 'dnsUpdateRecord', { domain: d.root, rrid: rec.record_id, rrhost: host, rrvalue: want.value, rrttl: String(want.ttl) });
    return 'updated';
  },
};
