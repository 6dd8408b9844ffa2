/**
 * DNS.LA open API (v2): basic auth with the API ID and secret; the domain found by name, its
 * records filtered by host and type (types by number: A 1, TXT 16, AAAA 28). Answers carry
 * `code` (200 is success) and `msg`.
 */
import { recordsProvider } from './generic.js';
import { errorDetail } from './rest.js';
import { basicAuth, httpError, providerError, zoneNotFound, type ProviderContext, type BasicRecordType } from './types.js';

const TYPE_NUMBER: Record<BasicRecordType, number> = { A: 1, TXT: 16, AAAA: 28 };

async function call<T>(ctx: ProviderContext, method: string, path: string, body?: unknown): Promise<{ code: number; msg?: string; data?: T }> {
  const res = await ctx.http({
    method,
    url: `${ctx.base}${path}`,
    headers: { authorization: basicAuth(ctx.creds), 'content-type': 'application/json;charset=utf-8' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  if (res.status < 200 || res.status > 299) throw httpError(res, 'DNS.LA', errorDetail(res));
  return JSON.parse(res.text) as { code: number; msg?: string; data?: T };
}

async function ok<T>(ctx: ProviderContext, method: string, path: string, body?: unknown): Promise<T> {
  const a = await call<T>(ctx, method, path, body);
  if (a.code !== 200) throw providerError('DNS.LA', `${a.code} ${a.msg ?? ''}`.trim());
  return a.data as T;
}

interface LaRecord {
  id: string;
  host: string;
  type: number;
  data: string;
}

export const dnsla = recordsProvider<string, LaRecord>(
  { name: 'dnsla', base: 'https://api.dns.la' },
  {
    async zone(ctx, d) {
      const a = await call<{ id: string; domain: string }>(ctx, 'GET', `/api/domain?domain=${encodeURIComponent(d.root)}`);
      if (a.code !== 200 || !a.data?.id) {
        if (a.code === 401 || a.code === 403) throw providerError('DNS.LA', `${a.code} ${a.msg ?? ''}`.trim());
        throw zoneNotFound('DNS.LA', d.root);
      }
      return a.data.id;
    },
    async list(ctx, zone, ref) {
      const q = new URLSearchParams({ pageIndex: '1', pageSize: '100', domainId: zone, host: ref.domain.sub, type: String(TYPE_NUMBER[ref.type as BasicRecordType]) });
      const data = await ok<{ results?: LaRecord[] }>(ctx, 'GET', `/api/recordList?${q}`);
      return (data.results ?? []).filter((r) => r.host === ref.domain.sub && r.type === TYPE_NUMBER[ref.type as BasicRecordType]);
    },
    valueOf: (r) => r.data,
    create: async (ctx, zone, want) => {
      await ok(ctx, 'POST', '/api/record', { domainId: zone, type: TYPE_NUMBER[want.type as BasicRecordType], host: want.domain.sub, data: want.value, ttl: want.ttl });
    },
    update: async (ctx, _zone, rec, want) => {
      await ok(ctx, 'PUT', '/api/record', { id: rec.id, type: TYPE_NUMBER[want.type as BasicRecordType], host: want.domain.sub, data: want.value, ttl: want.ttl });
    },
    delete: async (ctx, _zone, rec) => {
      await ok(ctx, 'DELETE', `/api/record?id=${encodeURIComponent(rec.id)}`);
    },
  },
);
