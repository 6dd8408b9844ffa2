/**
 * DNSPod through Tencent Cloud API 3.0 (version 2021-03-23), signed with TC3-HMAC-SHA256. `?RecordLine=`
 * per domain. DescribeRecordList reads, CreateRecord/ModifyRecord write, DeleteRecord removes one record.
 */
import { jsonOf } from '../../http/request.js';
import { tc3Authorization } from '../../http/sign/tc3.js';
import { pickRecord, providerError, recordsToRemove, sameValue, type DnsProvider, type ProviderContext, type RecordRef } from './types.js';

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
  async list(ctx, want) {
    return (await recordsOf(ctx, want)).map((r) => r.Value);
  },
  async remove(ctx, want) {
    for (const rec of recordsToRemove(await recordsOf(ctx, want), (r) => r.Value, want)) {
      await call(ctx, 'DeleteRecord', { Domain: want.domain.root, RecordId: rec.RecordId });
    }
  },
};
