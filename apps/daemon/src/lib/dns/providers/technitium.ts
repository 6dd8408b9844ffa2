/**
 * Technitium DNS Server's HTTP API at the user's server (`server` its web console's address, an API
 * token). Form POSTs to `/api/zones/records/{get,add,update,delete}` with the token in the body;
 * records have no id and are named by name, type and value (`ipAddress` for A/AAAA, `text` for TXT;
 * an update names the old value and the new). Answers are `{ status: ok | error | invalid-token, errorMessage }`.
 */
import { recordsProvider } from './generic.js';
import { readJson } from './rest.js';
import { providerError, type ProviderContext, type RecordRef, type RecordWant } from './types.js';

interface TtRecord {
  name: string;
  type: string;
  ttl: number;
  rData: { ipAddress?: string; text?: string };
}

async function call<T>(ctx: ProviderContext, op: 'get' | 'add' | 'update' | 'delete', params: Record<string, string>): Promise<T> {
  const res = await ctx.http({
    method: 'POST',
    url: `${ctx.base}/api/zones/records/${op}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ token: ctx.creds.secret, ...params }).toString(),
  });
  const a = readJson<{ status: string; errorMessage?: string; response?: T }>(res, 'Technitium');
  if (a.status !== 'ok') throw providerError('Technitium', `${a.status}: ${a.errorMessage ?? ''}`.trim());
  return a.response as T;
}

/** The record's value as the API names it: `ipAddress=` or `text=` (with `prefix`: `newIpAddress=`…). */
const valueParam = (type: string, value: string, prefix = ''): Record<string, string> => (type === 'TXT' ? { [prefix ? `${prefix}Text` : 'text']: value } : { [prefix ? `${prefix}IpAddress` : 'ipAddress']: value });
const where = (zone: string, ref: RecordRef) => ({ domain: ref.domain.full, zone, type: ref.type });
const valueOf = (r: TtRecord) => (r.type === 'TXT' ? (r.rData.text ?? '') : (r.rData.ipAddress ?? ''));

export const technitium = recordsProvider<string, TtRecord>(
  { name: 'technitium', base: '', baseOf: (creds) => creds.server.replace(/\/+$/, '') },
  {
    zone: async (_ctx, d) => d.root,
    async list(ctx, zone, ref) {
      const a = await call<{ records?: TtRecord[] }>(ctx, 'get', { domain: ref.domain.full, zone });
      return (a.records ?? []).filter((r) => r.name.toLowerCase() === ref.domain.full && r.type === ref.type);
    },
    valueOf,
    create: async (ctx, zone, want: RecordWant) => {
      await call(ctx, 'add', { ...where(zone, want), ttl: String(want.ttl), ...valueParam(want.type, want.value) });
    },
    update: async (ctx, zone, rec, want) => {
      await call(ctx, 'update', { ...where(zone, want), ttl: String(want.ttl), ...valueParam(want.type, valueOf(rec)), ...valueParam(want.type, want.value, 'new') });
    },
    delete: async (ctx, zone, rec, ref) => {
      await call(ctx, 'delete', { ...where(zone, ref), ...valueParam(ref.type, valueOf(rec)) });
    },
  },
);
