/** One call of an Alibaba Cloud RPC API (AliDNS, ESA): the signed query (signature v1.0), the JSON answer, its `Code`/`Message` as the error (`dnsZoneNotFound` for a `DomainName` the account does not hold). */
import { jsonOf } from '../../http/request.js';
import { ALI_RPC, aliSignedQuery } from '../../http/sign/acsrpc.js';
import { httpError, providerError, zoneNotFound, type ProviderContext } from './types.js';

/** The codes Alibaba Cloud DNS answers for a domain the account does not hold. */
const NO_DOMAIN = new Set(['InvalidDomainName.NoExist', 'IncorrectDomainUser']);

export function aliRpc(provider: string, version: string) {
  return async function call<T>(ctx: ProviderContext, action: string, params: Record<string, string>, method = 'GET'): Promise<T> {
    const qs = aliSignedQuery({ ...ALI_RPC, Version: version, AccessKeyId: ctx.creds.id, Action: action, ...params }, { secret: ctx.creds.secret, now: ctx.now(), method });
    const res = await ctx.http({ method, url: `${ctx.base}/?${qs}` });
    const a = jsonOf<T & { Code?: string; Message?: string }>(res);
    const detail = `${action}: ${a.Code ?? res.status} ${a.Message ?? ''}`.trim();
    if (res.status === 401 || res.status === 403) throw httpError(res, provider, detail);
    if (a.Code && NO_DOMAIN.has(a.Code) && params.DomainName) throw zoneNotFound(provider, params.DomainName);
    if (res.status !== 200 || a.Code) throw providerError(provider, detail);
    return a;
  };
}
