/**
 * Alibaba Cloud ESA (Edge Security Acceleration, RPC API 2024-09-10, signature v1.0): the site
 * found by name, its records by full name. ESA keeps A and AAAA as one type, `A/AAAA`, told apart
 * by the address; a record's value is `Data.Value` (sent as JSON).
 */
import { isIPv6 } from '@lucky/contracts';
import { aliRpc } from './alibaba.js';
import { recordsProvider } from './generic.js';
import { zoneNamed, type RecordType } from './types.js';

const call = aliRpc('ESA', '2024-09-10');

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
      return String(zoneNamed(Sites, (s) => s.SiteName, 'ESA', d.root).SiteId);
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
