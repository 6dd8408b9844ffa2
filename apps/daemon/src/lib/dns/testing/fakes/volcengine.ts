/**
 * Volcengine TrafficRoute DNS (2018-08-01): its HMAC-SHA256 signature rebuilt from the
 * documentation (canonical request over content-type, host, x-content-sha256, x-date; key from the
 * secret through date, region, service, `request`), reads by GET, writes by POST JSON, errors in
 * `ResponseMetadata.Error`.
 */
import { createHash, createHmac } from 'node:crypto';
import { bodyOf, drop, FAKE_ZONE, fullOf, inZone, pctEncode, Reject, relativeOf, safeEq, serve, upsert, type FakeCreds, type FakeProvider, type FakeRecord, type Req } from '../fakeserver.js';

const meta = (action: string, error?: { Code: string; Message: string }) => ({ RequestId: 'r-1', Action: action, Version: '2018-08-01', Service: 'DNS', Region: 'cn-north-1', ...(error ? { Error: error } : {}) });
const failure = (status: number, action: string, code: string, message: string) => ({ status, body: { ResponseMetadata: meta(action, { Code: code, Message: message }) } });

function checkSignature(r: Req, c: FakeCreds, action: string): void {
  const deny = (code: string, message: string) => new Reject(401, failure(401, action, code, message).body, code);
  const m = /^HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/cn-north-1\/DNS\/request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(String(r.headers.authorization ?? ''));
  if (!m) throw deny('MissingAuthenticationToken', 'The request is missing the authentication information');
  const [, key, day, signed, signature] = m as unknown as string[];
  if (key !== c.id) throw deny('InvalidAccessKey', 'The Access Key is invalid');
  const xdate = String(r.headers['x-date'] ?? '');
  const hash = (s: string) => createHash('sha256').update(s).digest('hex');
  if (String(r.headers['x-content-sha256']) !== hash(r.body)) throw deny('SignatureDoesNotMatch', 'x-content-sha256 does not match the body');
  if (xdate.slice(0, 8) !== day) throw deny('SignatureDoesNotMatch', 'date');
  const query = [...r.url.searchParams.entries()]
    .map(([k, v]) => `${pctEncode(k)}=${pctEncode(v)}`)
    .sort()
    .join('&');
  const headers = signed!.split(';').map((h) => `${h}:${String(r.headers[h] ?? '').trim()}\n`).join('');
  const canonical = [r.method, r.url.pathname, query, headers, signed, hash(r.body)].join('\n');
  const toSign = ['HMAC-SHA256', xdate, `${day}/cn-north-1/DNS/request`, hash(canonical)].join('\n');
  const h = (k: string | Buffer, s: string) => createHmac('sha256', k).update(s).digest();
  const kSigning = h(h(h(h(c.secret, day!), 'cn-north-1'), 'DNS'), 'request');
  if (!safeEq(createHmac('sha256', kSigning).update(toSign).digest('hex'), signature!)) throw deny('SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided');
}

export function fakeVolcengine(c: FakeCreds): Promise<FakeProvider> {
  const zone = { ZID: 384521, ZoneName: FAKE_ZONE };
  return serve(
    'volcengine',
    (r, st) => {
      const action = r.url.searchParams.get('Action') ?? '';
      if (r.url.searchParams.get('Version') !== '2018-08-01') return failure(400, action, 'InvalidVersion', 'version');
      checkSignature(r, c, action);
      const ok = (Result: unknown) => ({ status: 200, body: { ResponseMetadata: meta(action), Result } });
      const q = r.url.searchParams;
      const view = (x: FakeRecord) => ({ RecordID: x.id, ZID: zone.ZID, Host: relativeOf(x.name), Type: x.type, Value: x.value, TTL: x.ttl, Line: 'default', FQDN: x.name });
      const b = bodyOf<{ ZID?: number; RecordID?: string; Host?: string; Type?: string; Value?: string; TTL?: number }>(r);
      const noRecord = failure(404, action, 'RecordNotFound', 'The record does not exist');
      switch (action) {
        case 'ListZones':
          return ok({ Zones: (q.get('Key') ?? '').includes(zone.ZoneName) || zone.ZoneName.includes(q.get('Key') ?? '') ? [zone] : [], Total: 1 });
        case 'ListRecords': {
          if (Number(q.get('ZID')) !== zone.ZID) return failure(404, action, 'ZoneNotFound', 'zone');
          const recs = [...st.records.values()].filter((x) => inZone(x.name) && (!q.get('Host') || relativeOf(x.name) === q.get('Host')) && (!q.get('Type') || x.type === q.get('Type')));
          return ok({ Records: recs.map(view), TotalCount: recs.length });
        }
        case 'CreateRecord':
          if (r.method !== 'POST' || b.ZID !== zone.ZID) return failure(400, action, 'InvalidParameter', 'ZID');
          if ((b.TTL ?? 0) < 600) return failure(400, action, 'InvalidParameter.TTL', 'TTL must be at least 600');
          return ok({ RecordID: upsert(st, fullOf(b.Host!), b.Type!, b.Value!, b.TTL!).id });
        case 'UpdateRecord':
          if (r.method !== 'POST' || !st.records.has(b.RecordID ?? '')) return noRecord;
          upsert(st, fullOf(b.Host!), b.Type!, b.Value!, b.TTL!, b.RecordID);
          return ok({ RecordID: b.RecordID });
        case 'DeleteRecord':
          return r.method === 'POST' && drop(st, b.RecordID ?? '') ? ok({}) : noRecord;
      }
      return failure(400, action, 'InvalidActionOrVersion', 'action');
    },
    { limited: failure(429, 'ListRecords', 'FlowLimitExceeded', 'Request was denied due to flow control') },
  );
}
