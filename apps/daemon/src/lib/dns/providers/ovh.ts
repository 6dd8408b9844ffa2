/**
 * OVHcloud API 1.0: an application key and secret and a consumer key, each request signed (`$1$`
 * SHA-1) with the timestamp; the endpoint by region (`server`: ovh-eu, ovh-ca, ovh-us). Records of
 * a zone by id (`subDomain` '' at the apex), the zone refreshed after changes. Credentials: `id` the
 * application key, `secret` the application secret, `secret2` the consumer key.
 */
import { OVH_REGIONS } from '@lucky/contracts';
import { ovhSignature } from '../../http/sign/ovh.js';
import { recordsProvider } from './generic.js';
import { errorDetail } from './rest.js';
import { httpError, quotedValue, relativeName, zoneNotFound, type ProviderContext } from './types.js';
import type { HttpResponse } from '../../http/request.js';

const ENDPOINTS: Record<(typeof OVH_REGIONS)[number], string> = {
  'ovh-eu': 'https://eu.api.ovh.com/1.0',
  'ovh-ca': 'https://ca.api.ovh.com/1.0',
  'ovh-us': 'https://api.us.ovhcloud.com/1.0',
};

async function send(ctx: ProviderContext, method: string, path: string, body?: unknown): Promise<HttpResponse> {
  const url = `${ctx.base}${path}`;
  const payload = body === undefined ? '' : JSON.stringify(body);
  const timestamp = Math.floor(ctx.now().getTime() / 1000);
  return ctx.http({
    method,
    url,
    headers: {
      'content-type': 'application/json',
      'x-ovh-application': ctx.creds.id,
      'x-ovh-consumer': ctx.creds.secret2,
      'x-ovh-timestamp': String(timestamp),
      'x-ovh-signature': ovhSignature({ appSecret: ctx.creds.secret, consumerKey: ctx.creds.secret2, method, url, body: payload, timestamp }),
    },
    ...(body !== undefined ? { body: payload } : {}),
  });
}

async function call<T>(ctx: ProviderContext, method: string, path: string, body?: unknown): Promise<T> {
  const res = await send(ctx, method, path, body);
  if (res.status < 200 || res.status > 299) throw httpError(res, 'OVHcloud', errorDetail(res));
  return (res.text.trim() ? JSON.parse(res.text) : null) as T;
}

interface OvhRecord {
  id: number;
  subDomain: string;
  fieldType: string;
  target: string;
}

export const ovh = recordsProvider<string, OvhRecord>(
  { name: 'ovh', base: ENDPOINTS['ovh-eu'], baseOf: (creds) => ENDPOINTS[creds.server as keyof typeof ENDPOINTS] ?? ENDPOINTS['ovh-eu'] },
  {
    async zone(ctx, d) {
      const res = await send(ctx, 'GET', `/domain/zone/${d.root}`);
      if (res.status === 404) throw zoneNotFound('OVHcloud', d.root);
      if (res.status !== 200) throw httpError(res, 'OVHcloud', errorDetail(res));
      return d.root;
    },
    async list(ctx, zone, ref) {
      const q = new URLSearchParams({ fieldType: ref.type, subDomain: relativeName(ref.domain) });
      const ids = await call<number[]>(ctx, 'GET', `/domain/zone/${zone}/record?${q}`);
      const out: OvhRecord[] = [];
      for (const id of ids) out.push(await call<OvhRecord>(ctx, 'GET', `/domain/zone/${zone}/record/${id}`));
      return out;
    },
    valueOf: (r) => quotedValue(r.fieldType, r.target),
    create: async (ctx, zone, want) => {
      await call(ctx, 'POST', `/domain/zone/${zone}/record`, { fieldType: want.type, subDomain: relativeName(want.domain), target: want.value, ttl: want.ttl });
    },
    update: async (ctx, zone, rec, want) => {
      await call(ctx, 'PUT', `/domain/zone/${zone}/record/${rec.id}`, { subDomain: relativeName(want.domain), target: want.value, ttl: want.ttl });
    },
    delete: async (ctx, zone, rec) => {
      await call(ctx, 'DELETE', `/domain/zone/${zone}/record/${rec.id}`);
    },
    applied: async (ctx, zone) => {
      await call(ctx, 'POST', `/domain/zone/${zone}/refresh`);
    },
  },
);
