/** One call of an Alibaba Cloud RPC API (AliDNS, ESA): the signed query (signature v1.0), the JSON answer, its `Code`/`Message` as the error. */
import { jsonOf } from '../../http/request.js';
import { ALI_RPC, aliSignedQuery } from '../../http/sign/acsrpc.js';
import { httpError, providerError, type ProviderContext } from './types.js';

export function aliRpc(provider: string, version: string) {
  return async function call<T>(ctx: ProviderContext, action: string, params: Record<string, string>, method = 'GET'): Promise<T> {
    const qs = aliSignedQuery({ ...ALI_RPC, Version: version, AccessKeyId: ctx.creds.id, Action: action, ...params }, { secret: ctx.creds.secret, now: ctx.now(), method });
    const res = await ctx.http({ method, url: `${ctx.base}/?${qs}` });
    const a = jsonOf<T & { Code?: string; Message?: string }>(res);
    const detail = `${action}: ${a.Code ?? res.status} ${a.Message ?? ''}`.trim();
    if (res.status === 401 || res.status === 403) throw httpError(res, provider, detail);
    if (res.status !== 200 || a.Code) throw providerError(provider, detail);
    return a;
  };
}
