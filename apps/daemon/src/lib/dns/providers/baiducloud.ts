/**
 * Baidu Cloud DNS (bcd API), signed with BCE auth v1 (HMAC-SHA256): `/v1/domain/resolve/` list, add,
 * edit and delete (one record by id).
 */
import { createHmac } from 'node:crypto';
import { jsonOf } from '../../http/request.js';
import { httpError, pickRecord, recordsToRemove, rfc3986, sameValue, type DnsProvider, type ProviderContext, type RecordRef } from './types.js';

export function bceAuthorization(o: { ak: string; sk: string; method: string; path: string; headers: Record<string, string>; timestamp: string }): string {
  const prefix = `bce-auth-v1/${o.ak}/${o.timestamp}/1800`;
  const signingKey = createHmac('sha256', o.sk).update(prefix).digest('hex');
  const signed = Object.keys(o.headers).map((h) => h.toLowerCase()).sort();
  const canonHeaders = signed.map((h) => `${rfc3986(h)}:${rfc3986((o.headers[h] ?? '').trim())}`).join('\n');
  const canonical = [o.method, o.path.split('/').map(rfc3986).join('/'), '', canonHeaders].join('\n');
  const sig = createHmac('sha256', signingKey).update(canonical).digest('hex');
  return `${prefix}/${signed.join(';')}/${sig}`;
}

async function call<T>(ctx: ProviderContext, path: string, body: unknown): Promise<T> {
  const url = new URL(`${ctx.base}${path}`);
  const timestamp = ctx.now().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const signedHeaders = { host: url.host, 'x-bce-date': timestamp };
  const res = await ctx.http({
    method: 'POST',
    url: url.toString(),
    headers: {
      ...signedHeaders,
      'content-type': 'application/json',
      authorization: bceAuthorization({ ak: ctx.creds.id, sk: ctx.creds.secret, method: 'POST', path: url.pathname, headers: signedHeaders, timestamp }),
    },
    body: JSON.stringify(body),
  });
  if (res.status < 200 || res.status > 299) throw httpError(res, `Baidu Cloud ${path}`);
  return res.text.trim() === '' ? ({} as T) : jsonOf<T>(res);
}

interface BdRecord {
  recordId: number;
  domain: string;
  rdtype: string;
  rdata: string;
  ttl: number;
}

async function recordsOf(ctx: ProviderContext, want: RecordRef): Promise<BdRecord[]> {
  const list = await call<{ result?: BdRecord[] }>(ctx, '/v1/domain/resolve/list', { domain: want.domain.root, pageNo: 1, pageSize: 1000 });
  return (list.result ?? []).filter((r) => r.domain === want.domain.sub && r.rdtype === want.type);
}

export const baiducloud: DnsProvider = {
  name: 'baiducloud',
  base: 'https://bcd.baidubce.com',
  async set(ctx, want) {
    const d = want.domain;
    const rec = pickRecord(await recordsOf(ctx, want), (r) => r.rdata, want);
    const fields = { domain: d.sub, rdType: want.type, ttl: want.ttl, rdata: want.value, zoneName: d.root };
    if (!rec) {
      await call(ctx, '/v1/domain/resolve/add', fields);
      return 'created';
    }
    if (sameValue(rec.rdata, want)) return 'same';
    await call(ctx, '/v1/domain/resolve/edit', { recordId: rec.recordId, view: 'DEFAULT', ...fields });
    return 'updated';
  },
  async list(ctx, want) {
    return (await recordsOf(ctx, want)).map((r) => r.rdata);
  },
  async remove(ctx, want) {
    for (const rec of recordsToRemove(await recordsOf(ctx, want), (r) => r.rdata, want)) {
      await call(ctx, '/v1/domain/resolve/delete', { zoneName: want.domain.root, recordId: rec.recordId });
    }
  },
};
