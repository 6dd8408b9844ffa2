/**
 * Njalla API (JSON-RPC over POST, `Authorization: Njalla <token>`): `list-records` of a domain,
 * `add-record`, `edit-record` and `remove-record` by id; names relative, `@` at the apex. Errors come
 * back as `{ error: { code, message } }` (`Error` in some answers).
 */
import { recordsProvider } from './generic.js';
import { readJson } from './rest.js';
import { providerError, type ProviderContext } from './types.js';

interface NjRecord {
  id: string | number;
  type: string;
  name: string;
  content: string;
  ttl: number;
}

async function call<T>(ctx: ProviderContext, method: string, params: Record<string, unknown>): Promise<T> {
  const res = await ctx.http({
    method: 'POST',
    url: `${ctx.base}/`,
    headers: { authorization: `Njalla ${ctx.creds.secret}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: method, method, params }),
  });
  type Err = { code?: number; message?: string };
  const a = readJson<{ result?: T; error?: Err; Error?: Err }>(res, 'Njalla');
  const e = a.error ?? a.Error;
  if (e) throw providerError('Njalla', `${method}: ${e.code ?? ''} ${e.message ?? ''}`.replace(/\s+/g, ' ').trim());
  return a.result as T;
}

export const njalla = recordsProvider<string, NjRecord>(
  { name: 'njalla', base: 'https://njal.la/api/1' },
  {
    zone: async (_ctx, d) => d.root,
    async list(ctx, zone, ref) {
      const { records } = await call<{ records: NjRecord[] }>(ctx, 'list-records', { domain: zone });
      return records.filter((r) => r.type === ref.type && r.name === ref.domain.sub);
    },
    valueOf: (r) => r.content,
    create: async (ctx, zone, want) => {
      await call(ctx, 'add-record', { domain: zone, name: want.domain.sub, type: want.type, content: want.value, ttl: want.ttl });
    },
    update: async (ctx, zone, rec, want) => {
      await call(ctx, 'edit-record', { domain: zone, id: rec.id, content: want.value, ttl: want.ttl });
    },
    delete: async (ctx, zone, rec) => {
      await call(ctx, 'remove-record', { domain: zone, id: rec.id });
    },
  },
);
