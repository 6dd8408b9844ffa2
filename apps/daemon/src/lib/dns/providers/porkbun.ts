/** Porkbun API v3: key and secret key in the JSON body. */
import { jsonOf } from '../../http/request.js';
import { providerError, sameValue, type DnsProvider, type ProviderContext } from './types.js';

async function call<T>(ctx: ProviderContext, path: string, body: Record<string, unknown> = {}): Promise<T> {
  const res = await ctx.http({
    method: 'POST',
    url: `${ctx.base}${path}`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apikey: ctx.creds.id, secretapikey: ctx.creds.secret, ...body }),
  });
  const a = jsonOf<T & { status: string; message?: string }>(res);
  if (a.status !== 'SUCCESS') throw providerError('Porkbun', `${path.split('/').slice(0, 3).join('/')}: ${a.message ?? `HTTP ${res.status}`}`);
  return a;
}

export const porkbun: DnsProvider = {
  name: 'porkbun',
  base: 'https://api.porkbun.com/api/json/v3',
  canRead: true,
  async set(ctx, want) {
    const d = want.domain;
    const sub = d.sub === '@' ? '' : d.sub;
    const found = await call<{ records: Array<{ id: string; content: string }> }>(
      ctx,
      `/dns/retrieveByNameType/${d.root}/${want.type}${sub ? `/${sub}` : ''}`,
    );
    const rec = found.records[0];
    const fields = { name: sub, type: want.type, content: want.value, ttl: String(want.ttl) };
    if (!rec) {
      await call(ctx, `/dns/create/${d.root}`, fields);
      return 'created';
    }
    if (sameValue(rec.content, want)) return 'same';
    await call(ctx, `/dns/edit/${d.root}/${rec.id}`, fields);
    return 'updated';
  },
};
