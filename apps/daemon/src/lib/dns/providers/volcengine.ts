/**
 * Volcengine TrafficRoute DNS (open API 2018-08-01, service DNS, region cn-north-1), signed with
 * Volcengine's HMAC-SHA256 (the SigV4 steps, its own names). Reads are GETs with the parameters in
 * the query, writes POST JSON; errors in `ResponseMetadata.Error`. Host `@` at the apex.
 */
import { createHash } from 'node:crypto';
import { signV4, VOLCENGINE_V4 } from '../../http/sign/sigv4.js';
import { recordsProvider } from './generic.js';
import { errorDetail } from './rest.js';
import { httpError, providerError, zoneNamed, type ProviderContext } from './types.js';

interface VolcAnswer<T> {
  ResponseMetadata: { Error?: { Code: string; Message: string } };
  Result?: T;
}

async function call<T>(ctx: ProviderContext, action: string, params: Record<string, string | number>, write = false): Promise<T> {
  const url = new URL(`${ctx.base}/`);
  url.searchParams.set('Action', action);
  url.searchParams.set('Version', '2018-08-01');
  if (!write) for (const [k, v] of Object.entries(params)) url.searchParams.set(k, String(v));
  const body = write ? JSON.stringify(params) : '';
  const sha = createHash('sha256').update(body).digest('hex');
  const headers = signV4(VOLCENGINE_V4, {
    method: write ? 'POST' : 'GET',
    url,
    headers: { 'content-type': 'application/json', 'x-content-sha256': sha },
    body,
    accessKey: ctx.creds.id,
    secretKey: ctx.creds.secret,
    region: 'cn-north-1',
    service: 'DNS',
    date: ctx.now(),
  });
  const res = await ctx.http({ method: write ? 'POST' : 'GET', url: url.toString(), headers, ...(write ? { body } : {}) });
  let a: VolcAnswer<T>;
  try {
    a = JSON.parse(res.text) as VolcAnswer<T>;
  } catch {
    throw httpError(res, 'Volcengine');
  }
  const err = a.ResponseMetadata?.Error;
  if (err?.Code || res.status < 200 || res.status > 299) {
    const detail = err ? `${action}: ${err.Code} ${err.Message}` : errorDetail(res);
    throw res.status === 401 || res.status === 403 ? httpError(res, 'Volcengine', detail) : providerError('Volcengine', detail);
  }
  return a.Result as T;
}

interface VolcRecord {
  RecordID: string;
  Host: string;
  Type: string;
  Value: string;
  Line: string;
}

export const volcengine = recordsProvider<number, VolcRecord>(
  { name: 'volcengine', base: 'https://open.volcengineapi.com' },
  {
    async zone(ctx, d) {
      const { Zones } = await call<{ Zones?: Array<{ ZID: number; ZoneName: string }> }>(ctx, 'ListZones', { Key: d.root });
      return zoneNamed(Zones, (z) => z.ZoneName, 'Volcengine', d.root).ZID;
    },
    async list(ctx, zone, ref) {
      const { Records } = await call<{ Records?: VolcRecord[] }>(ctx, 'ListRecords', { ZID: zone, Host: ref.domain.sub, Type: ref.type, SearchMode: 'exact', PageSize: 500 });
      return (Records ?? []).filter((r) => r.Host === ref.domain.sub && r.Type === ref.type);
    },
    valueOf: (r) => r.Value,
    create: async (ctx, zone, want) => {
      await call(ctx, 'CreateRecord', { ZID: zone, Host: want.domain.sub, Type: want.type, Value: want.value, TTL: want.ttl, Line: want.domain.params.Line ?? 'default' }, true);
    },
    update: async (ctx, _zone, rec, want) => {
      await call(ctx, 'UpdateRecord', { RecordID: rec.RecordID, Host: want.domain.sub, Type: want.type, Value: want.value, TTL: want.ttl, Line: rec.Line || 'default' }, true);
    },
    delete: async (ctx, _zone, rec) => {
      await call(ctx, 'DeleteRecord', { RecordID: rec.RecordID }, true);
    },
  },
);
