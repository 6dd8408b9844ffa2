/**
 * Huawei Cloud DNS (v2 API), signed with the APIG SDK-HMAC-SHA256 scheme. Records are record sets
 * (`/v2/zones/{zone_id}/recordsets`): TXT values in them are quoted character-strings. Removing a
 * value rewrites the set without it, or deletes the set when it was the last.
 */
import { createHash, createHmac } from 'node:crypto';
import { jsonOf } from '../../http/request.js';
import { MsgError } from '../../msgerror.js';
import { expectOk, httpError, quotedValue, quoteTxt, recordsToRemove, rfc3986, setHolds, type DnsProvider, type ProviderContext, type RecordRef } from './types.js';

const sha256hex = (s: string) => createHash('sha256').update(s).digest('hex');

/** `20261122T010203Z` */
export function sdkDate(d: Date): string {
  return d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

/** The canonical request of the APIG signer: the path always ends in `/`, query sorted and encoded. */
export function huaweiCanonical(method: string, url: URL, headers: Record<string, string>, signed: string[], body: string): string {
  let path = url.pathname.split('/').map((s) => rfc3986(decodeURIComponent(s))).join('/');
  if (!path.endsWith('/')) path += '/';
  const query = [...url.searchParams.entries()]
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonHeaders = signed.map((h) => `${h}:${(headers[h] ?? '').trim()}\n`).join('');
  return [method, path, query, canonHeaders, signed.join(';'), sha256hex(body)].join('\n');
}

export function huaweiSignature(canonical: string, date: string, secret: string): string {
  const toSign = `SDK-HMAC-SHA256\n${date}\n${sha256hex(canonical)}`;
  return createHmac('sha256', secret).update(toSign).digest('hex');
}

async function call<T>(ctx: ProviderContext, method: string, path: string, body?: unknown): Promise<T> {
  const url = new URL(`${ctx.base}${path}`);
  const payload = body === undefined ? '' : JSON.stringify(body);
  const date = sdkDate(ctx.now());
  const headers: Record<string, string> = { 'content-type': 'application/json', host: url.host, 'x-sdk-date': date };
  const signed = ['content-type', 'host', 'x-sdk-date'];
  const sig = huaweiSignature(huaweiCanonical(method, url, headers, signed, payload), date, ctx.creds.secret);
  headers.authorization = `SDK-HMAC-SHA256 Access=${ctx.creds.id}, SignedHeaders=${signed.join(';')}, Signature=${sig}`;
  const res = await ctx.http({ method, url: url.toString(), headers, ...(body !== undefined ? { body: payload } : {}) });
  if (res.status < 200 || res.status > 299) {
    let detail = res.text.slice(0, 300);
    try {
      const e = JSON.parse(res.text) as { code?: string; message?: string; error_code?: string; error_msg?: string };
      detail = `${e.code ?? e.error_code ?? ''} ${e.message ?? e.error_msg ?? ''}`.trim() || detail;
    } catch {
      /* keep the text */
    }
    throw httpError(res, `Huawei Cloud ${method} ${url.pathname}`, detail);
  }
  return jsonOf<T>(expectOk(res, 'Huawei Cloud'));
}

interface HwRecordset {
  id: string;
  name: string;
  type: string;
  records: string[];
  ttl: number;
}

async function zoneId(ctx: ProviderContext, root: string): Promise<string> {
  const zones = await call<{ zones: Array<{ id: string; name: string }> }>(ctx, 'GET', `/v2/zones?name=${encodeURIComponent(`${root}.`)}&zone_type=public`);
  const zone = zones.zones.find((z) => z.name.replace(/\.$/, '') === root);
  if (!zone) throw new MsgError({ key: 'dnsZoneNotFound', vars: { provider: 'Huawei Cloud', zone: root } });
  return zone.id;
}

async function setsOf(ctx: ProviderContext, zone: string, want: RecordRef): Promise<HwRecordset[]> {
  const fqdn = `${want.domain.full}.`;
  const sets = await call<{ recordsets: HwRecordset[] }>(ctx, 'GET', `/v2/zones/${zone}/recordsets?name=${encodeURIComponent(fqdn)}&type=${want.type}`);
  return sets.recordsets.filter((r) => r.name === fqdn && r.type === want.type);
}

const dataOf = (type: string, value: string) => (type === 'TXT' ? quoteTxt(value) : value);

export const huaweicloud: DnsProvider = {
  name: 'huaweicloud',
  base: 'https://dns.myhuaweicloud.com',
  async set(ctx, want) {
    const zone = await zoneId(ctx, want.domain.root);
    const rec = (await setsOf(ctx, zone, want))[0];
    const body = { name: `${want.domain.full}.`, type: want.type, records: [dataOf(want.type, want.value)], ttl: want.ttl };
    if (!rec) {
      await call(ctx, 'POST', `/v2/zones/${zone}/recordsets`, body);
      return 'created';
    }
    if (setHolds(rec.records.map((r) => quotedValue(rec.type, r)), want)) return 'same';
    await call(ctx, 'PUT', `/v2/zones/${zone}/recordsets/${rec.id}`, body);
    return 'updated';
  },
  async list(ctx, want) {
    const zone = await zoneId(ctx, want.domain.root);
    return (await setsOf(ctx, zone, want)).flatMap((set) => set.records.map((r) => quotedValue(set.type, r)));
  },
  async remove(ctx, want) {
    const zone = await zoneId(ctx, want.domain.root);
    for (const set of await setsOf(ctx, zone, want)) {
      const gone = recordsToRemove(set.records, (r) => quotedValue(set.type, r), want);
      if (gone.length === 0) continue;
      const kept = set.records.filter((r) => !gone.includes(r));
      if (kept.length === 0) await call(ctx, 'DELETE', `/v2/zones/${zone}/recordsets/${set.id}`);
      else await call(ctx, 'PUT', `/v2/zones/${zone}/recordsets/${set.id}`, { name: set.name, type: set.type, records: kept, ttl: set.ttl });
    }
  },
};
