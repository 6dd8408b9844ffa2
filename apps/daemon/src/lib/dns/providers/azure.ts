/**
 * Azure DNS through Azure Resource Manager (api-version 2018-05-01), with a service principal: a
 * token from Microsoft Entra ID (OAuth 2.0 client credentials: tenant, application id, client
 * secret), then the subscription's DNS zones and one record set per name and type. Credentials:
 * `id` the application (client) id, `secret` its secret, `id2` the tenant, `id3` the subscription.
 */
import { errorDetail, rest } from './rest.js';
import { rrsetProvider } from './generic.js';
import { httpError, zoneNamed, type ProviderContext, type RecordRef, type RecordType } from './types.js';
import { jsonOf } from '../../http/request.js';

const ARM = 'https://management.azure.com';
const LOGIN = 'https://login.microsoftonline.com';
const VERSION = 'api-version=2018-05-01';

/** Entra ID's token endpoint: its own host, except where a test serves both at one address. */
const loginBase = (ctx: ProviderContext) => (ctx.base === ARM ? LOGIN : ctx.base);

async function token(ctx: ProviderContext): Promise<string> {
  const res = await ctx.http({
    method: 'POST',
    url: `${loginBase(ctx)}/${encodeURIComponent(ctx.creds.id2)}/oauth2/v2.0/token`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: ctx.creds.id, client_secret: ctx.creds.secret, scope: `${ARM}/.default` }).toString(),
  });
  // Entra ID says 400/401 `invalid_client` for a wrong secret: the credentials were refused.
  if (res.status === 400 || res.status === 401) throw httpError({ ...res, status: 401 }, 'Azure', errorDetail(res));
  if (res.status !== 200) throw httpError(res, 'Azure', errorDetail(res));
  return jsonOf<{ access_token: string }>(res).access_token;
}

interface ArmRecordSet {
  properties: {
    TTL: number;
    ARecords?: Array<{ ipv4Address: string }>;
    AAAARecords?: Array<{ ipv6Address: string }>;
    TXTRecords?: Array<{ value: string[] }>;
  };
}

/** The values of a set, and a set's `properties` holding values. */
const valuesOf = (type: RecordType, p: ArmRecordSet['properties']): string[] =>
  type === 'A' ? (p.ARecords ?? []).map((r) => r.ipv4Address) : type === 'AAAA' ? (p.AAAARecords ?? []).map((r) => r.ipv6Address) : (p.TXTRecords ?? []).map((r) => r.value.join(''));
const recordsOf = (type: RecordType, values: string[]) =>
  type === 'A'
    ? { ARecords: values.map((ipv4Address) => ({ ipv4Address })) }
    : type === 'AAAA'
      ? { AAAARecords: values.map((ipv6Address) => ({ ipv6Address })) }
      : { TXTRecords: values.map((v) => ({ value: v.match(/[\s\S]{1,255}/g) ?? [''] })) };

interface Zone {
  /** The zone's resource id: /subscriptions/…/resourceGroups/…/providers/Microsoft.Network/dnszones/example.com */
  id: string;
  token: string;
}

const arm = (ctx: ProviderContext, zone: Zone) => rest(ctx, 'Azure', { authorization: `Bearer ${zone.token}` });
const setPath = (zone: Zone, ref: RecordRef) => `${zone.id}/${ref.type}/${encodeURIComponent(ref.domain.sub)}?${VERSION}`;

export const azure = rrsetProvider<Zone>(
  { name: 'azure', base: ARM },
  {
    async zone(ctx, d) {
      const bearer = await token(ctx);
      const path = `/subscriptions/${encodeURIComponent(ctx.creds.id3)}/providers/Microsoft.Network/dnszones?${VERSION}`;
      const { value } = await arm(ctx, { id: '', token: bearer }).call<{ value: Array<{ id: string; name: string }> }>('GET', path);
      return { id: zoneNamed(value, (z) => z.name, 'Azure', d.root).id, token: bearer };
    },
    async get(ctx, zone, ref) {
      const set = await arm(ctx, zone).find<ArmRecordSet>('GET', setPath(zone, ref));
      return set && { values: valuesOf(ref.type, set.properties), ttl: set.properties.TTL };
    },
    put: async (ctx, zone, ref, set) => {
      await arm(ctx, zone).call('PUT', setPath(zone, ref), { properties: { TTL: set.ttl, ...recordsOf(ref.type, set.values) } });
    },
    delete: async (ctx, zone, ref) => {
      await arm(ctx, zone).call('DELETE', setPath(zone, ref));
    },
  },
);
