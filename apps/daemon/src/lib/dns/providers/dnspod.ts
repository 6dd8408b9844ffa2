/**
 * DNSPod through Tencent Cloud API 3.0 (version 2021-03-23), signed with TC3-HMAC-SHA256. `?RecordLine=`
 * per domain. DescribeRecordList reads, CreateRecord/ModifyRecord write, DeleteRecord removes one record.
 */
import { createHash, createHmac } from 'node:crypto';
import { jsonOf } from '../../http/request.js';
import { pickRecord, providerError, recordsToRemove, sameValue, type DnsProvider, type ProviderContext, type RecordRef } from './types.js';

const sha256hex = (s: string) => createHash('sha256').update(s).digest('hex');
const hmac = (key: Buffer | string, s: string) => createHmac('sha256', key).update(s).digest();

/** The Authorization header value for one request (the documented signing steps). */
export function tc3Authorization(o: {
  secretId: string;
  secretKey: string;
  service: string;
  host: string;
  contentType: string;
  payload: string;
  timestamp: number;
}): string {
  const date = new Date(o.timestamp * 1000).toISOString().slice(0, 10);
  const signedHeaders = 'content-type;host';
  const canonical = ['POST', '/', '', `content-type:${o.contentType}\nhost:${o.host}\n`, signedHeaders, sha256hex(o.payload)].join('\n');
  const scope = `${date}/${o.service}/tc3_request`;
  const toSign = ['TC3-HMAC-SHA256', String(o.timestamp), scope, sha256hex(canonical)].join('\n');
  const kSigning = hmac(hmac(hmac(`TC3${o.secretKey}`, date), o.service), 'tc3_request');
  const signature = createHmac('sha256', kSigning).update(toSign).digest('hex');
  return `TC3-HMAC-SHA256 Credential=${o.secretId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
}

const CONTENT_TYPE = 'application/json; charset=utf-8';

async function call<T>(ctx: ProviderContext, action: string, body: Record<string, unknown>): Promise<T> {
  const payload = JSON.stringify(body);
  const host = new URL(ctx.base).host;
  const timestamp = Math.floor(ctx.now().getTime() / 1000);
  const res = await ctx.http({
    method: 'POST',
    url: `${ctx.base}/`,
    headers: {
      authorization: tc3Authorization({ secretId: ctx.creds.id, secretKey: ctx.creds.secret, service: 'dnspod', host, contentType: CONTENT_TYPE, payload, timestamp }),
      'content-type': CONTENT_TYPE,
      host,
      'x-tc-action': action,
      'x-tc-timestamp': String(timestamp),
      'x-tc-version': '2021-03-23',
    },
    body: payload,
  });
  const a = jsonOf<{ Response: T & { Error?: { Code: string; Message: string } } }>(res);
  if (a.Response?.Error) {
    const e = providerError('DNSPod', `${action}: ${a.Response.Error.Code} ${a.Response.Error.Message}`);
    (e as Error & { code?: string }).code = a.Response.Error.Code;
    throw e;
  }
  return a.Response;
}

interface PodRecord {
  RecordId: number;
  Name: string;
  Type: string;
  Value: string;
  TTL: number;
  Line: string;
}

/** The name's records of the type; none is an error code of its own. */
async function recordsOf(ctx: ProviderContext, want: RecordRef): Promise<PodRecord[]> {
  try {
    return (await call<{ RecordList: PodRecord[] }>(ctx, 'DescribeRecordList', { Domain: want.domain.root, Subdomain: want.domain.sub, RecordType: want.type })).RecordList;
  } catch (err) {
    if ((err as { code?: string }).code !== 'ResourceNotFound.NoDataOfRecord') throw err;
    return [];
  }
}

export const dnspod: DnsProvider = {
  name: 'dnspod',
  base: 'https://dnspod.tencentcloudapi.com',
  async set(ctx, want) {
    const d = want.domain;
    const line = d.params.RecordLine ?? '默认';
    const list = await recordsOf(ctx, want);
    const onLine = list.filter((r) => r.Line === line);
    const rec = pickRecord(onLine.length ? onLine : list, (r) => r.Value, want);
    const fields = { Domain: d.root, SubDomain: d.sub, RecordType: want.type, RecordLine: line, Value: want.value, TTL: want.ttl };
    if (!rec) {
      await call(ctx, 'CreateRecord', fields);
      return 'created';
    }
    if (sameValue(rec.Value, want)) return 'same';
    await call(ctx, 'ModifyRecord', { ...fields, RecordId: rec.RecordId });
    return 'updated';
  },
  async remove(ctx, want) {
    for (const rec of recordsToRemove(await recordsOf(ctx, want), (r) => r.Value, want)) {
      await call(ctx, 'DeleteRecord', { Domain: want.domain.root, RecordId: rec.RecordId });
    }
  },
};
