/** Tencent Cloud EdgeOne (teo 2022-09-01): TC3-HMAC-SHA256 checked; sites and their DNS records (full names). */
import { bodyOf, drop, FAKE_ZONE, inZone, serve, upsert, type FakeCreds, type FakeProvider, type FakeRecord } from '../fakeserver.js';
import { checkTc3, tencentError } from './checks.js';

interface Filter {
  Name: string;
  Values: string[];
}

export function fakeEdgeone(c: FakeCreds): Promise<FakeProvider> {
  const zone = { ZoneId: 'zone-2o0i3x4', ZoneName: FAKE_ZONE, Type: 'full' };
  return serve(
    'edgeone',
    (r, st) => {
      if (checkTc3(r, c) !== 'teo' || r.headers['x-tc-version'] !== '2022-09-01') throw tencentError('InvalidParameter', 'service or version');
      const b = bodyOf<{ ZoneId?: string; Filters?: Filter[]; Name?: string; Type?: string; Content?: string; TTL?: number; DnsRecords?: Array<{ RecordId: string; Name: string; Type: string; Content: string; TTL: number }>; RecordIds?: string[] }>(r);
      const ok = (o: object) => ({ status: 200, body: { Response: { ...o, RequestId: 'x' } } });
      const filter = (name: string) => b.Filters?.find((f) => f.Name === name)?.Values[0];
      const view = (x: FakeRecord) => ({ ZoneId: zone.ZoneId, RecordId: x.id, Name: x.name, Type: x.type, Content: x.value, TTL: x.ttl, Location: 'Default', Status: 'enable' });
      const action = String(r.headers['x-tc-action']);
      if (action === 'DescribeZones') {
        const zones = filter('zone-name') === zone.ZoneName ? [zone] : [];
        return ok({ TotalCount: zones.length, Zones: zones });
      }
      if (b.ZoneId !== zone.ZoneId) throw tencentError('ResourceNotFound', 'The zone does not exist.');
      switch (action) {
        case 'DescribeDnsRecords': {
          const recs = [...st.records.values()].filter((x) => inZone(x.name) && (!filter('name') || x.name === filter('name')) && (!filter('type') || x.type === filter('type')));
          return ok({ TotalCount: recs.length, DnsRecords: recs.map(view) });
        }
        case 'CreateDnsRecord':
          return ok({ RecordId: upsert(st, b.Name!, b.Type!, b.Content!, b.TTL!).id });
        case 'ModifyDnsRecords':
          for (const x of b.DnsRecords ?? []) {
            if (!st.records.has(x.RecordId)) throw tencentError('ResourceNotFound.RecordNotFound', 'record');
            upsert(st, x.Name, x.Type, x.Content, x.TTL, x.RecordId);
          }
          return ok({});
        case 'DeleteDnsRecords':
          for (const id of b.RecordIds ?? []) if (!drop(st, id)) throw tencentError('ResourceNotFound.RecordNotFound', 'record');
          return ok({});
      }
      throw tencentError('InvalidAction', 'action');
    },
    { limited: { status: 200, body: { Response: { Error: { Code: 'RequestLimitExceeded', Message: 'Your current request times equals to `20` in a second, which exceeds the frequency limit `20`.' }, RequestId: 'x' } } } },
  );
}
