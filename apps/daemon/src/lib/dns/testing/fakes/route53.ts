/**
 * AWS Route 53 (2013-04-01): every request's Signature Version 4 checked (canonical request
 * rebuilt here from the documentation: path, sorted query, signed headers, body hash; the key
 * derived through date, region, service), XML answers and XML errors (`InvalidClientTokenId`,
 * `SignatureDoesNotMatch`, `InvalidChangeBatch`, `Throttling`). TXT values must be quoted.
 */
import { createHash, createHmac } from 'node:crypto';
import { drop, FAKE_ZONE, newId, pctEncode, quoted, Reject, replaceSet, safeEq, serve, setOf, unquoted, type FakeCreds, type FakeProvider, type FakeRecord, type Req } from '../fakeserver.js';

const ZONE_ID = 'Z0123456789ABC';
const XMLNS = 'https://route53.amazonaws.com/doc/2013-04-01/';
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const unesc = (s: string) => s.replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
const all = (xml: string, tag: string) => [...xml.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map((m) => m[1]!);
const one = (xml: string, tag: string) => unesc(all(xml, tag)[0] ?? '');

const error = (status: number, code: string, message: string) => ({
  status,
  type: 'text/xml',
  body: `<?xml version="1.0"?><ErrorResponse xmlns="${XMLNS}"><Error><Type>Sender</Type><Code>${code}</Code><Message>${esc(message)}</Message></Error><RequestId>r-1</RequestId></ErrorResponse>`,
});

function checkSignature(r: Req, c: FakeCreds): void {
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(String(r.headers.authorization ?? ''));
  const deny = (code: string, message: string) => new Reject(403, error(403, code, message).body, code);
  if (!m) throw deny('IncompleteSignature', 'Authorization header requires Credential, SignedHeaders and Signature.');
  const [, key, day, region, service, signed, signature] = m as unknown as string[];
  if (key !== c.id) throw deny('InvalidClientTokenId', 'The security token included in the request is invalid.');
  const stamp = String(r.headers['x-amz-date'] ?? '');
  const at = Date.parse(stamp.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'));
  if (!Number.isFinite(at) || Math.abs(Date.now() - at) > 5 * 60_000 || stamp.slice(0, 8) !== day) throw deny('SignatureDoesNotMatch', 'Signature expired or date mismatch');
  if (region !== 'us-east-1' || service !== 'route53') throw deny('SignatureDoesNotMatch', 'Credential should be scoped to a valid region and service.');
  const names = signed!.split(';');
  if (!names.includes('host') || !names.includes('x-amz-date')) throw deny('SignatureDoesNotMatch', 'host and x-amz-date must be signed');
  const query = [...r.url.searchParams.entries()]
    .map(([k, v]) => `${pctEncode(k)}=${pctEncode(v)}`)
    .sort()
    .join('&');
  const headers = names.map((h) => `${h}:${String(r.headers[h] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  const hash = (s: string) => createHash('sha256').update(s).digest('hex');
  const canonical = [r.method, r.url.pathname, query, headers, signed, hash(r.body)].join('\n');
  const toSign = ['AWS4-HMAC-SHA256', stamp, `${day}/${region}/${service}/aws4_request`, hash(canonical)].join('\n');
  const h = (k: string | Buffer, s: string) => createHmac('sha256', k).update(s).digest();
  const signing = h(h(h(h(`AWS4${c.secret}`, day!), region!), service!), 'aws4_request');
  if (!safeEq(createHmac('sha256', signing).update(toSign).digest('hex'), signature!)) {
    throw deny('SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.');
  }
}

export function fakeRoute53(c: FakeCreds): Promise<FakeProvider> {
  return serve(
    'route53',
    (r, st) => {
      checkSignature(r, c);
      const xml = (body: string) => ({ status: 200, type: 'text/xml', body: `<?xml version="1.0" encoding="UTF-8"?>${body}` });
      if (r.method === 'GET' && r.url.pathname === '/hostedzonesbyname') {
        // Zones are listed from the name asked for on, whatever it is: the client picks its own.
        const zone = `<HostedZone><Id>/hostedzone/${ZONE_ID}</Id><Name>${FAKE_ZONE}.</Name><CallerReference>ref</CallerReference><Config><PrivateZone>false</PrivateZone></Config><ResourceRecordSetCount>2</ResourceRecordSetCount></HostedZone>`;
        return xml(`<ListHostedZonesByNameResponse xmlns="${XMLNS}"><HostedZones>${zone}</HostedZones><IsTruncated>false</IsTruncated><MaxItems>10</MaxItems></ListHostedZonesByNameResponse>`);
      }
      const m = /^\/hostedzone\/([^/]+)\/rrset\/?$/.exec(r.url.pathname);
      if (!m || m[1] !== ZONE_ID) return error(404, 'NoSuchHostedZone', `No hosted zone found with ID: ${m?.[1] ?? ''}`);
      const setXml = (recs: FakeRecord[]) =>
        `<ResourceRecordSet><Name>${recs[0]!.name}.</Name><Type>${recs[0]!.type}</Type><TTL>${recs[0]!.ttl}</TTL><ResourceRecords>${recs
          .map((x) => `<ResourceRecord><Value>${esc(x.type === 'TXT' ? quoted(x.value) : x.value)}</Value></ResourceRecord>`)
          .join('')}</ResourceRecords></ResourceRecordSet>`;
      if (r.method === 'GET') {
        const name = (r.url.searchParams.get('name') ?? '').replace(/\.$/, '');
        const type = r.url.searchParams.get('type') ?? '';
        // The listing starts at that name and type: without such a set, the next one comes back.
        const exact = st.all(name, type);
        const next = [...st.records.values()].find((x) => x.name !== name || x.type !== type);
        const recs = exact.length ? exact : next ? st.all(next.name, next.type) : [];
        return xml(`<ListResourceRecordSetsResponse xmlns="${XMLNS}"><ResourceRecordSets>${recs.length ? setXml(recs) : ''}</ResourceRecordSets><IsTruncated>false</IsTruncated><MaxItems>1</MaxItems></ListResourceRecordSetsResponse>`);
      }
      for (const ch of all(r.body, 'Change')) {
        const name = one(ch, 'Name').replace(/\.$/, '');
        const type = one(ch, 'Type');
        const ttl = Number(one(ch, 'TTL'));
        const raw = all(ch, 'Value').map(unesc);
        const values = raw.map((v) => (type === 'TXT' ? unquoted(v) : v));
        if (values.some((v) => v === null)) return error(400, 'InvalidChangeBatch', 'Invalid Resource Record: FATAL problem: InvalidCharacterString (Value should be enclosed in quotation marks)');
        const have = st.all(name, type);
        if (one(ch, 'Action') === 'DELETE') {
          const same = have.length === values.length && have.every((x, i) => x.value === values[i]) && have[0]?.ttl === ttl;
          if (!same) return error(400, 'InvalidChangeBatch', `Tried to delete resource record set [name='${name}.', type='${type}'] but the values provided do not match the current values`);
          for (const x of have) drop(st, x.id);
        } else replaceSet(st, setOf(st, name, type) ?? newId(), name, type, values as string[], ttl);
      }
      return xml(`<ChangeResourceRecordSetsResponse xmlns="${XMLNS}"><ChangeInfo><Id>/change/C2682N5HXP0BZ4</Id><Status>PENDING</Status><SubmittedAt>2026-03-01T08:00:00.000Z</SubmittedAt></ChangeInfo></ChangeResourceRecordSetsResponse>`);
    },
    { limited: error(400, 'Throttling', 'Rate exceeded') },
  );
}
