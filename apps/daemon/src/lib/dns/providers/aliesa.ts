/**
 * Alibaba Cloud ESA (Edge Security Acceleration, RPC API 2024-09-10, signature v1.0): the site
 * found by name, its records by full name. ESA keeps A and AAAA as one type, `A/AAAA`, told apart
 * by the address; a record's value is `Data.Value` (sent as JSON).
 */
import { isIPv6 } from '@lucky/contracts';
import { jsonOf } from '../../http/request.js';
import { ALI_RPC, aliSignedQuery } from '../../http/sign/acsrpc.js';
import { recordsProvider } from './generic.js';
import { httpError, providerError, zoneNotFound, type ProviderContext, type RecordType } from './types.js';

async function call<T>(ctx: ProviderContext, action: string, params: Record<string, string>, method = 'GET'): Promise<T> {
  const qs = aliSignedQuery({ ...ALI_RPC, Version: '2024-09-10', AccessKeyId: ctx.creds.id, Action: action, ...params }, { secret: ctx.creds.secret, now: ctx.now(), method });
  const res = await ctx.http({ method, url: `${ctx.base}/?${qs}` });
  const a = jsonOf<T & { Code?: string; Message?: string }>(res);
  if (res.status === 401 || res.status === 403) throw httpError(res, 'ESA', `${action}: ${a.Code ?? ''} ${a.Message ?? ''}`.trim());
  if (res.status !== 200 || a.Code) throw providerError('ESA', `${action}: ${a.Code ?? res.status} ${a.Message ?? ''}`.trim());
  return a;
}

interface EsaRecord {
  RecordId: number;
  RecordName: string;
  RecordType: string;
  Data: { Value: string };
}

/** ESA's type of a record type. */
const esaType = (t: RecordType) => (t === 'TXT' ? 'TXT' : 'A/AAAA');
/** Whether an `A/AAAA` record is of the family asked for. */
const ofType = (r: EsaRecord, t: RecordType) => (t === 'TXT' ? r.RecordType === 'TXT' : r.RecordType === 'A/AAAA' && isIPv6(r.Data.Value) === (t === 'AAAA'));

export const aliesa = recordsProvider<string, EsaRecord>(
  { name: 'aliesa', base: 'https://esa.cn-hangzhou.aliyuncs.com' },
  {
    async zone(ctx, d) {
      const { Sites } = await call<{ Sites: Array<{ SiteId: number; SiteName: string }> }>(ctx, 'ListSites', { SiteName: d.root });
      const site = Sites.find((s) => s.SiteName === d.root);
      if (!site) throw zoneNotFound('ESA', d.root);
      return String(site.SiteId);
    },
    async list(ctx, site, ref) {
      const { Records } = await call<{ Records: EsaRecord[] }>(ctx, 'ListRecords', { SiteId: site, RecordName: ref.domain.full, RecordMatchType: 'exact', Type: esaType(ref.type), PageSize: '500' });
      return Records.filter((r) => r.RecordName === ref.domain.full && ofType(r, ref.type));
    },
    valueOf: (r) => r.Data.Value,
    create: async (ctx, site, want) => {
      await call(ctx, 'CreateRecord', { SiteId: site, RecordName: want.domain.full, Type: esaType(want.type), Data: JSON.stringify({ Value: want.value }), Ttl: String(want.ttl) }, 'POST');
    },
    update: async (ctx, _site, rec, want) => {
      await call(ctx, 'UpdateRecord', { RecordId: String(rec.RecordId), Type: esaType(want.type), Data: JSON.stringify({ Value: want.value }), Ttl: String(want.ttl) }, 'POST');
    },
    delete: async (ctx, _site, rec) => {
      await call(ctx, 'DeleteRecord', { RecordId: String(rec.RecordId) }, 'POST');
    },
  },
);
