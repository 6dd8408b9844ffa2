/**
 * Rainyun (雨云) API v2 (`x-api-key`): the domain is given by its id (`id`), or, without one, found by
 * name in the account's domain list (`dnsZoneNotFound` when it is not there); its records listed,
 * created (POST), changed (PATCH) and deleted (DELETE `?record_id=`). Answers carry `code` (200) and
 * `message`.
 */
import { recordsProvider } from './generic.js';
import { readJson } from './rest.js';
import { providerError, zoneNotFound, type ProviderContext } from './types.js';

async function call<T>(ctx: ProviderContext, method: string, path: string, body?: unknown): Promise<T> {
  const res = await ctx.http({
    method,
    url: `${ctx.base}${path}`,
    headers: { 'x-api-key': ctx.creds.secret, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const a = readJson<{ code: number; message?: string; data?: T }>(res, 'Rainyun');
  if (a.code !== 200) throw providerError('Rainyun', `${a.code} ${a.message ?? ''}`.trim());
  return a.data as T;
}

interface RyRecord {
  record_id: number;
  host: string;
  type: string;
  value: string;
  line: string;
}

const domainPath = (id: string | number) => `/product/domain/${encodeURIComponent(String(id))}/dns`;

/** The account's domain named `root`, by the domain list's filter on the name. */
async function domainId(ctx: ProviderContext, root: string): Promise<number> {
  const options = JSON.stringify({ columnFilters: { 'domains.Domain': root }, sort: [], page: 1, perPage: 100 });
  const data = await call<{ Records?: Array<{ id: number; domain: string }> }>(ctx, 'GET', `/product/domain/?options=${encodeURIComponent(options)}`);
  const found = data.Records?.find((d) => d.domain.toLowerCase() === root);
  if (!found) throw zoneNotFound('Rainyun', root);
  return found.id;
}
const fields = (want: { domain: { sub: string }; type: string; value: string; ttl: number }, line: string) => ({ host: want.domain.sub, line, level: 10, ttl: want.ttl, type: want.type, value: want.value });

export const rainyun = recordsProvider<string, RyRecord>(
  { name: 'rainyun', base: 'https://api.v2.rainyun.com' },
  {
    zone: async (ctx, d) => domainPath(ctx.creds.id || (await domainId(ctx, d.root))),
    async list(ctx, path, ref) {
      const data = await call<{ Records?: RyRecord[] }>(ctx, 'GET', `${path}/?limit=100&page_no=1`);
      return (data.Records ?? []).filter((r) => r.host === ref.domain.sub && r.type === ref.type);
    },
    valueOf: (r) => r.value,
    create: async (ctx, path, want) => {
      await call(ctx, 'POST', path, { ...fields(want, 'DEFAULT'), record_id: 0 });
    },
    update: async (ctx, path, rec, want) => {
      await call(ctx, 'PATCH', path, { ...fields(want, rec.line || 'DEFAULT'), record_id: rec.record_id });
    },
    delete: async (ctx, path, rec) => {
      await call(ctx, 'DELETE', `${path}?record_id=${rec.record_id}`);
    },
  },
);
