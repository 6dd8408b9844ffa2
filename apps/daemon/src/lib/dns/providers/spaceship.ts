/**
 * Spaceship DNS API (`X-API-Key`, `X-API-Secret`): a domain's records listed whole; records have no
 * id, so one is named by type, name and value: added with PUT, deleted with DELETE of the same
 * items, changed by deleting the old and adding the new. Addresses in `address`, TXT in `value`.
 */
import { recordsProvider } from './generic.js';
import { errorDetail } from './rest.js';
import { httpError, zoneNotFound, type ProviderContext, type RecordWant } from './types.js';

interface SsItem {
  type: string;
  name: string;
  address?: string;
  value?: string;
  ttl?: number;
}

async function call(ctx: ProviderContext, method: string, zone: string, body?: unknown) {
  const res = await ctx.http({
    method,
    url: `${ctx.base}/dns/records/${zone}${method === 'GET' ? '?take=500&skip=0' : ''}`,
    headers: { 'x-api-key': ctx.creds.id, 'x-api-secret': ctx.creds.secret, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  // The domain is not in the account.
  if (res.status === 404) throw zoneNotFound('Spaceship', zone);
  if (res.status < 200 || res.status > 299) throw httpError(res, 'Spaceship', errorDetail(res));
  return res.text.trim() ? (JSON.parse(res.text) as unknown) : undefined;
}

const item = (want: RecordWant): SsItem => ({ type: want.type, name: want.domain.sub, ...(want.type === 'TXT' ? { value: want.value } : { address: want.value }), ttl: want.ttl });
const idOf = (r: SsItem): SsItem => ({ type: r.type, name: r.name, ...(r.type === 'TXT' ? { value: r.value ?? '' } : { address: r.address ?? '' }) });

export const spaceship = recordsProvider<string, SsItem>(
  { name: 'spaceship', base: 'https://spaceship.dev/api/v1' },
  {
    zone: async (_ctx, d) => d.root,
    async list(ctx, zone, ref) {
      const a = (await call(ctx, 'GET', zone)) as { items?: SsItem[] };
      return (a.items ?? []).filter((r) => r.name === ref.domain.sub && r.type === ref.type);
    },
    valueOf: (r) => (r.type === 'TXT' ? (r.value ?? '') : (r.address ?? '')),
    create: async (ctx, zone, want) => {
      await call(ctx, 'PUT', zone, { force: false, items: [item(want)] });
    },
    update: async (ctx, zone, rec, want) => {
      await call(ctx, 'DELETE', zone, [idOf(rec)]);
      await call(ctx, 'PUT', zone, { force: false, items: [item(want)] });
    },
    delete: async (ctx, zone, rec) => {
      await call(ctx, 'DELETE', zone, [idOf(rec)]);
    },
  },
);
