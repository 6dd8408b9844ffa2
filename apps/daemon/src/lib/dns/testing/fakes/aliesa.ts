/** Alibaba Cloud ESA (2024-09-10): RPC signature v1.0 checked; sites, records with `A/AAAA` for both address types and `Data` as JSON. */
import { drop, FAKE_ZONE, inZone, serve, upsert, type FakeCreds, type FakeProvider, type FakeRecord } from '../fakeserver.js';
import { aliError, checkAliRpc } from './checks.js';

export function fakeAliesa(c: FakeCreds): Promise<FakeProvider> {
  const nonces = new Set<string>();
  const site = { SiteId: 7096621098, SiteName: FAKE_ZONE, AccessType: 'NS' };
  return serve(
    'aliesa',
    (r, st) => {
      const q = checkAliRpc(r, c, nonces);
      if (q.Version !== '2024-09-10') throw aliError('InvalidVersion', 'version');
      const typeOf = (x: FakeRecord) => (x.type === 'TXT' ? 'TXT' : 'A/AAAA');
      const view = (x: FakeRecord) => ({ RecordId: Number(x.id), RecordName: x.name, RecordType: typeOf(x), Data: { Value: x.value }, Ttl: x.ttl, SiteId: site.SiteId });
      const dataValue = () => {
        const v = (JSON.parse(q.Data ?? '{}') as { Value?: unknown }).Value;
        if (typeof v !== 'string') throw aliError('InvalidParameter.Data', 'Data must hold Value');
        return v;
      };
      const typeFrom = (t: string | undefined, v: string) => (t === 'TXT' ? 'TXT' : t === 'A/AAAA' ? (v.includes(':') ? 'AAAA' : 'A') : null);
      switch (q.Action) {
        case 'ListSites':
          return { status: 200, body: { TotalCount: 1, Sites: q.SiteName === site.SiteName ? [site] : [], RequestId: 'x' } };
        case 'ListRecords': {
          if (Number(q.SiteId) !== site.SiteId) throw aliError('Site.NotFound', 'site', 404);
          const recs = [...st.records.values()].filter((x) => inZone(x.name) && (!q.RecordName || x.name === q.RecordName) && (!q.Type || typeOf(x) === q.Type));
          return { status: 200, body: { TotalCount: recs.length, Records: recs.map(view), RequestId: 'x' } };
        }
        case 'CreateRecord': {
          if (r.method !== 'POST' || Number(q.SiteId) !== site.SiteId) throw aliError('InvalidParameter', 'method or site');
          const v = dataValue();
          const type = typeFrom(q.Type, v);
          if (!type) throw aliError('InvalidParameter.Type', 'type');
          return { status: 200, body: { RecordId: Number(upsert(st, q.RecordName!, type, v, Number(q.Ttl)).id), RequestId: 'x' } };
        }
        case 'UpdateRecord': {
          const old = st.records.get(q.RecordId ?? '');
          if (r.method !== 'POST' || !old) throw aliError('Record.NotFound', 'record', 404);
          const v = dataValue();
          upsert(st, old.name, typeFrom(q.Type, v) ?? old.type, v, Number(q.Ttl), old.id);
          return { status: 200, body: { RequestId: 'x' } };
        }
        case 'DeleteRecord':
          if (r.method !== 'POST' || !drop(st, q.RecordId ?? '')) throw aliError('Record.NotFound', 'record', 404);
          return { status: 200, body: { RequestId: 'x' } };
      }
      throw aliError('InvalidAction.NotFound', 'action', 404);
    },
    { limited: { status: 400, body: { Code: 'Throttling.User', Message: 'Request was denied due to user flow control.', RequestId: 'x' } } },
  );
}
