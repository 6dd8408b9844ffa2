/**
 * Azure: Microsoft Entra ID's token endpoint (client credentials: tenant, client id, secret, the
 * ARM scope) and Azure Resource Manager's DNS zones and record sets, both at this one address.
 * ARM calls need a token it issued and `api-version`; errors in ARM's and Entra ID's shapes.
 */
import { randomUUID } from 'node:crypto';
import { drop, FAKE_ZONE, fullOf, newId, Reject, replaceSet, serve, setOf, type FakeCreds, type FakeProvider } from '../fakeserver.js';

const FIELD: Record<string, [string, string]> = { A: ['ARecords', 'ipv4Address'], AAAA: ['AAAARecords', 'ipv6Address'] };

export function fakeAzure(c: FakeCreds): Promise<FakeProvider> {
  const tokens = new Set<string>();
  const zoneId = `/subscriptions/${c.id3}/resourceGroups/dns-rg/providers/Microsoft.Network/dnszones/${FAKE_ZONE}`;
  const armError = (status: number, code: string, message: string) => ({ status, body: { error: { code, message } } });
  return serve('azure', (r, st) => {
    const token = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(r.url.pathname);
    if (token && r.method === 'POST') {
      const f = new URLSearchParams(r.body);
      if (f.get('grant_type') !== 'client_credentials' || f.get('scope') !== 'https://management.azure.com/.default') {
        return { status: 400, body: { error: 'invalid_request', error_description: 'AADSTS900144: The request body must contain the following parameter: grant_type or scope.' } };
      }
      if (token[1] !== c.id2) return { status: 400, body: { error: 'invalid_request', error_description: `AADSTS90002: Tenant '${token[1]}' not found.` } };
      if (f.get('client_id') !== c.id || f.get('client_secret') !== c.secret) {
        throw new Reject(401, { error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret provided.', error_codes: [7000215] }, 'client secret');
      }
      const t = randomUUID();
      tokens.add(t);
      return { status: 200, body: { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: t } };
    }
    const bearer = /^Bearer (.+)$/.exec(String(r.headers.authorization ?? ''))?.[1];
    if (!bearer || !tokens.has(bearer)) throw new Reject(401, armError(401, 'InvalidAuthenticationToken', 'The access token is invalid.').body, 'token');
    if (r.url.searchParams.get('api-version') !== '2018-05-01') return armError(400, 'MissingApiVersionParameter', "The api-version query parameter (?api-version=) is required for all requests.");
    if (r.method === 'GET' && r.url.pathname === `/subscriptions/${c.id3}/providers/Microsoft.Network/dnszones`) {
      return { status: 200, body: { value: [{ id: zoneId, name: FAKE_ZONE, type: 'Microsoft.Network/dnszones', location: 'global' }] } };
    }
    if (!r.url.pathname.startsWith('/subscriptions/')) return armError(404, 'NotFound', 'not found');
    if (!r.url.pathname.startsWith(`/subscriptions/${c.id3}/`)) return armError(404, 'SubscriptionNotFound', 'The subscription could not be found.');
    const m = new RegExp(`^${zoneId.replace(/[.]/g, '\\.')}/(A|AAAA|TXT)/([^/]+)$`).exec(r.url.pathname);
    if (!m) return armError(404, 'ResourceNotFound', 'The Resource was not found.');
    const type = m[1]!;
    const name = fullOf(decodeURIComponent(m[2]!));
    const recs = st.all(name, type);
    const view = () => ({
      id: `${zoneId}/${type}/${m[2]}`,
      name: m[2],
      type: `Microsoft.Network/dnszones/${type}`,
      properties: {
        TTL: recs[0]?.ttl ?? 3600,
        fqdn: `${name}.`,
        ...(type === 'TXT' ? { TXTRecords: st.all(name, type).map((x) => ({ value: [x.value] })) } : { [FIELD[type]![0]]: st.all(name, type).map((x) => ({ [FIELD[type]![1]]: x.value })) }),
      },
    });
    if (r.method === 'GET') return recs.length ? { status: 200, body: view() } : armError(404, 'NotFound', `The resource record '${m[2]}' does not exist in resource group 'dns-rg' of subscription '${c.id3}'.`);
    if (r.method === 'DELETE') {
      for (const x of recs) drop(st, x.id);
      return { status: recs.length ? 200 : 204, body: '' };
    }
    if (r.method !== 'PUT') return armError(405, 'MethodNotAllowed', 'method');
    const p = (JSON.parse(r.body) as { properties: Record<string, unknown> & { TTL: number } }).properties;
    const values =
      type === 'TXT'
        ? ((p.TXTRecords as Array<{ value: string[] }> | undefined) ?? []).map((x) => x.value.join(''))
        : ((p[FIELD[type]![0]] as Array<Record<string, string>> | undefined) ?? []).map((x) => x[FIELD[type]![1]]!);
    if (!values.length || values.some((v) => typeof v !== 'string')) return armError(400, 'BadRequest', 'The record set must have records.');
    replaceSet(st, setOf(st, name, type) ?? newId(), name, type, values, p.TTL);
    return { status: recs.length ? 200 : 201, body: view() };
  });
}
