/**
 * AWS Route 53 REST API (2013-04-01, XML), signed with AWS Signature Version 4 (region us-east-1).
 * The hosted zone found by name (public zones first); record sets read with ListResourceRecordSets,
 * written with ChangeResourceRecordSets (UPSERT, and DELETE with the set as it is). TXT values are
 * quoted character-strings.
 */
import { httpError, quotedValue, quoteTxt, zoneNotFound, type ProviderContext, type RecordRef } from './types.js';
import { AWS_V4, signV4 } from '../../http/sign/sigv4.js';
import { rrsetProvider, type RrSet } from './generic.js';
import { xmlElements, xmlEscape, xmlText, xmlUnescape } from './xml.js';

const NS = 'https://route53.amazonaws.com/doc/2013-04-01/';

async function call(ctx: ProviderContext, method: string, path: string, body = ''): Promise<string> {
  const url = new URL(`${ctx.base}${path}`);
  const headers = signV4(AWS_V4, {
    method,
    url,
    headers: body ? { 'content-type': 'application/xml' } : {},
    body,
    accessKey: ctx.creds.id,
    secretKey: ctx.creds.secret,
    region: 'us-east-1',
    service: 'route53',
    date: ctx.now(),
  });
  const res = await ctx.http({ method, url: url.toString(), headers, ...(body ? { body } : {}) });
  if (res.status < 200 || res.status > 299) {
    const detail = `${xmlText(res.text, 'Code')} ${xmlText(res.text, 'Message')}`.trim();
    throw httpError(res, 'Route 53', detail || res.text.slice(0, 300));
  }
  return res.text;
}

const fqdn = (ref: RecordRef) => `${ref.domain.full}.`;

function change(action: 'UPSERT' | 'DELETE', ref: RecordRef, set: RrSet): string {
  const data = set.raw ?? set.values.map((v) => (ref.type === 'TXT' ? quoteTxt(v) : v));
  const values = data.map((v) => `<ResourceRecord><Value>${xmlEscape(v)}</Value></ResourceRecord>`).join('');
  return (
    `<?xml version="1.0" encoding="UTF-8"?><ChangeResourceRecordSetsRequest xmlns="${NS}"><ChangeBatch><Changes><Change><Action>${action}</Action>` +
    `<ResourceRecordSet><Name>${xmlEscape(fqdn(ref))}</Name><Type>${ref.type}</Type><TTL>${set.ttl}</TTL><ResourceRecords>${values}</ResourceRecords>` +
    `</ResourceRecordSet></Change></Changes></ChangeBatch></ChangeResourceRecordSetsRequest>`
  );
}

export const route53 = rrsetProvider<string>(
  { name: 'route53', base: 'https://route53.amazonaws.com/2013-04-01' },
  {
    async zone(ctx, d) {
      const xml = await call(ctx, 'GET', `/hostedzonesbyname?dnsname=${encodeURIComponent(d.root)}&maxitems=10`);
      const zones = xmlElements(xml, 'HostedZone').filter((z) => xmlText(z, 'Name') === `${d.root}.`);
      const zone = zones.find((z) => xmlText(z, 'PrivateZone') !== 'true') ?? zones[0];
      if (!zone) throw zoneNotFound('Route 53', d.root);
      return xmlText(zone, 'Id').replace(/^\/hostedzone\//, '');
    },
    async get(ctx, zone, ref) {
      const xml = await call(ctx, 'GET', `/hostedzone/${zone}/rrset?name=${encodeURIComponent(fqdn(ref))}&type=${ref.type}&maxitems=1`);
      // The listing starts at the name and type asked for: the first set is theirs only when it is that name and type.
      const set = xmlElements(xml, 'ResourceRecordSet')[0];
      if (!set || xmlText(set, 'Name') !== fqdn(ref) || xmlText(set, 'Type') !== ref.type) return null;
      const raw = xmlElements(set, 'Value').map((v) => xmlUnescape(v.trim()));
      return { values: raw.map((v) => quotedValue(ref.type, v)), ttl: Number(xmlText(set, 'TTL')), raw };
    },
    put: async (ctx, zone, ref, set) => {
      await call(ctx, 'POST', `/hostedzone/${zone}/rrset/`, change('UPSERT', ref, set));
    },
    delete: async (ctx, zone, ref, set) => {
      await call(ctx, 'POST', `/hostedzone/${zone}/rrset/`, change('DELETE', ref, set));
    },
  },
);
