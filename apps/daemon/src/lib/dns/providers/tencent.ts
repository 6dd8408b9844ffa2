/** One call of Tencent Cloud API 3.0 (DNSPod, Tencent Cloud DNS, EdgeOne): a JSON POST signed with TC3-HMAC-SHA256; errors in the answer's `Response.Error` (`dnsZoneNotFound` for a `Domain` the account does not hold). */
import { jsonOf } from '../../http/request.js';
import { tc3Authorization } from '../../http/sign/tc3.js';
import { providerError, zoneNotFound, type ProviderContext } from './types.js';

/** The codes of a domain the account does not hold (DNSPod's API 3.0 error table). */
const NO_DOMAIN = new Set(['InvalidParameterValue.DomainNotExists', 'FailedOperation.NotDomainOwner', 'ResourceNotFound.NoDataOfDomain']);

const CONTENT_TYPE = 'application/json; charset=utf-8';

/** A refusal; `code` is Tencent's error code (`ResourceNotFound.NoDataOfRecord`…). */
export type TencentError = Error & { code?: string };

export async function tencentCall<T>(ctx: ProviderContext, o: { provider: string; service: string; version: string; action: string; body: Record<string, unknown> }): Promise<T> {
  const payload = JSON.stringify(o.body);
  const host = new URL(ctx.base).host;
  const timestamp = Math.floor(ctx.now().getTime() / 1000);
  const res = await ctx.http({
    method: 'POST',
    url: `${ctx.base}/`,
    headers: {
      authorization: tc3Authorization({ secretId: ctx.creds.id, secretKey: ctx.creds.secret, service: o.service, host, contentType: CONTENT_TYPE, payload, timestamp }),
      'content-type': CONTENT_TYPE,
      host,
      'x-tc-action': o.action,
      'x-tc-timestamp': String(timestamp),
      'x-tc-version': o.version,
    },
    body: payload,
  });
  const a = jsonOf<{ Response: T & { Error?: { Code: string; Message: string } } }>(res);
  if (a.Response?.Error) {
    if (NO_DOMAIN.has(a.Response.Error.Code) && typeof o.body.Domain === 'string') throw zoneNotFound(o.provider, o.body.Domain);
    const e: TencentError = providerError(o.provider, `${o.action}: ${a.Response.Error.Code} ${a.Response.Error.Message}`);
    e.code = a.Response.Error.Code;
    throw e;
  }
  return a.Response;
}
