/**
 * Porkbun API v3: key and secret key in the JSON body. `dns/retrieveByNameType` reads, `dns/create` and
 * `dns/edit` write, `dns/delete` removes one record by id.
 */
import { jsonOf } from '../../http/request.js';
import { pickRecord, providerError, recordsToRemove, sameValue, zoneNotFound, type DnsProvider, type ProviderContext, type RecordRef } from './types.js';

async function call<T>(ctx: ProviderContext, path: string, body: Record<string, unknown> = {}): Promise<T> {
  const res = await ctx.http({
    method: 'POST',
    url: `${ctx.base}${path}`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apikey: ctx.creds.id, secretapikey: ctx.creds.secret, ...body }),
  });
  const a = jsonOf<T & { status: string; message?: string; code?: string }>(res);
  // A domain the account does not hold (or not opened to the API): "Invalid domain.", code INVALID_DOMAIN.
  if (a.status !== 'SUCCESS' && (a.code === 'INVALID_DOMAIN' || a.message === 'Invalid domain.')) throw zoneNotFound('Porkbun', path.split('/')[3] ?? '');
  if (a.status !== 'SUCCESS') throw providerError('Porkbun', `${path.split('/').slice(0, 3).join('/')}: ${a.message ?? `HTTP ${res.status}`}`);
  return a;
}

const subOf = (want: RecordRef) => (want.domain.sub === '@' ? '' : want.domain.sub);

async function recordsOf(ctx: ProviderContext, want: RecordRef): Promise<Array<{ id: string; content: string }>> {
  const sub = subOf(want);
  return (await call<{ records: Array<{ id: string; content: string }> }>(ctx, `/dns/retrieveByNameType/${want.domain.root}/${want.type}${sub ? `/${sub}` : ''}`)).records;
}

export const porkbun: DnsProvider = {
  name: 'porkbun',
  base: 'https://api.porkbun.com/api/json/v3',
  async set(ctx, want) {
    const root = want.domain.root;
    const rec = pickRecord(await recordsOf(ctx, want), (r) => r.content, want);
    const fields = { name: subOf(want), type: want.type, content: want.value, ttl: String(want.ttl) };
    if (!rec) {
      await call(ctx, `/dns/create/${root}`, fields);
      return 'created';
    }
    if (sameValue(rec.content, want)) return 'same';
    await call(ctx, `/dns/edit/${root}/${rec.id}`, fields);
    return 'updated';
  },
  async list(ctx, want) {
    return (await recordsOf(ctx, want)).map((r) => r.content);
  },
  async remove(ctx, want) {
    for (const rec of recordsToRemove(await recordsOf(ctx, want), (r) => r.content, want)) {
      await call(ctx, `/dns/delete/${want.domain.root}/${rec.id}`);
    }
  },
};
