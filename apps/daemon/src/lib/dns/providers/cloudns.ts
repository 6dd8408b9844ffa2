/**
 * ClouDNS API (form POSTs with `auth-id` and `auth-password`; answers `status`/`statusDescription`):
 * the zone checked with get-zone-info, its records listed by host and type (an object keyed by id,
 * or [] when there are none), added, changed and deleted by id. ClouDNS takes only certain TTLs: a
 * TTL is raised to the next one it takes.
 */
import { recordsProvider } from './generic.js';
import { errorDetail } from './rest.js';
import { httpError, providerError, relativeName, zoneNotFound, type ProviderContext } from './types.js';

/** The TTLs ClouDNS accepts. */
const TTLS = [60, 300, 900, 1800, 3600, 21600, 43200, 86400, 172800, 259200, 604800, 1209600, 2592000];
export const cloudnsTtl = (ttl: number): number => TTLS.find((t) => t >= ttl) ?? TTLS[TTLS.length - 1]!;

interface Failed {
  status?: string;
  statusDescription?: string;
}

async function call<T>(ctx: ProviderContext, op: string, params: Record<string, string>): Promise<T & Failed> {
  const res = await ctx.http({
    method: 'POST',
    url: `${ctx.base}/${op}.json`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ 'auth-id': ctx.creds.id, 'auth-password': ctx.creds.secret, ...params }).toString(),
  });
  if (res.status < 200 || res.status > 299) throw httpError(res, 'ClouDNS', errorDetail(res));
  return JSON.parse(res.text) as T & Failed;
}

async function ok(ctx: ProviderContext, op: string, params: Record<string, string>): Promise<void> {
  const a = await call<object>(ctx, op, params);
  if (a.status !== 'Success') throw providerError('ClouDNS', `${op}: ${a.statusDescription ?? a.status ?? ''}`);
}

interface CnsRecord {
  id: string;
  host: string;
  type: string;
  record: string;
}

export const cloudns = recordsProvider<string, CnsRecord>(
  { name: 'cloudns', base: 'https://api.cloudns.net/dns' },
  {
    async zone(ctx, d) {
      const a = await call<{ name?: string }>(ctx, 'get-zone-info', { 'domain-name': d.root });
      if (a.name === d.root) return d.root;
      if (a.status === 'Failed' && /auth/i.test(a.statusDescription ?? '')) throw providerError('ClouDNS', a.statusDescription!);
      throw zoneNotFound('ClouDNS', d.root);
    },
    async list(ctx, zone, ref) {
      const a = await call<Record<string, CnsRecord> | CnsRecord[]>(ctx, 'records', { 'domain-name': zone, host: relativeName(ref.domain), type: ref.type });
      if (a.status === 'Failed') throw providerError('ClouDNS', `records: ${a.statusDescription ?? ''}`);
      const all = Array.isArray(a) ? a : Object.values(a).filter((r): r is CnsRecord => typeof r === 'object' && r !== null && 'id' in r);
      return all.filter((r) => r.host === relativeName(ref.domain) && r.type === ref.type);
    },
    valueOf: (r) => r.record,
    create: (ctx, zone, want) =>
      ok(ctx, 'add-record', { 'domain-name': zone, 'record-type': want.type, host: relativeName(want.domain), record: want.value, ttl: String(cloudnsTtl(want.ttl)) }),
    update: (ctx, zone, rec, want) =>
      ok(ctx, 'mod-record', { 'domain-name': zone, 'record-id': rec.id, host: relativeName(want.domain), record: want.value, ttl: String(cloudnsTtl(want.ttl)) }),
    delete: (ctx, zone, rec) => ok(ctx, 'delete-record', { 'domain-name': zone, 'record-id': rec.id }),
  },
);
