/** The registry: one entry per provider file, and the one way to set, list or remove records through one. */
import { DDNS_PROVIDER_INFO, MESSAGES, type DdnsCallback, type DdnsCredentials, type DdnsProviderName } from '@lucky/contracts';
import { retryAfterMs, type HttpFn } from '../../http/request.js';
import { MsgError } from '../../msgerror.js';
import { alidns } from './alidns.js';
import { aliesa } from './aliesa.js';
import { azure } from './azure.js';
import { baiducloud } from './baiducloud.js';
import { bunny } from './bunny.js';
import { callback } from './callback.js';
import { cloudflare } from './cloudflare.js';
import { cloudns } from './cloudns.js';
import { desec } from './desec.js';
import { digitalocean } from './digitalocean.js';
import { dnsimple } from './dnsimple.js';
import { dnsla } from './dnsla.js';
import { dnsmadeeasy } from './dnsmadeeasy.js';
import { dnspod, tencentcloud } from './dnspod.js';
import { duckdns } from './duckdns.js';
import { dynadot } from './dynadot.js';
import { dyndns2, he, noip } from './dyndns.js';
import { dynu } from './dynu.js';
import { dynv6 } from './dynv6.js';
import { edgeone } from './edgeone.js';
import { gandi } from './gandi.js';
import { gcore } from './gcore.js';
import { godaddy } from './godaddy.js';
import { hetzner } from './hetzner.js';
import { hetznercloud } from './hetznercloud.js';
import { huaweicloud } from './huaweicloud.js';
import { ionos } from './ionos.js';
import { linode } from './linode.js';
import { luadns } from './luadns.js';
import { mythicbeasts } from './mythicbeasts.js';
import { namecheap } from './namecheap.js';
import { namecom } from './namecom.js';
import { namesilo } from './namesilo.js';
import { netlify } from './netlify.js';
import { njalla } from './njalla.js';
import { ns1 } from './ns1.js';
import { ovh } from './ovh.js';
import { porkbun } from './porkbun.js';
import { powerdns } from './powerdns.js';
import { rainyun } from './rainyun.js';
import { rfc2136 } from './rfc2136.js';
import { route53 } from './route53.js';
import { scaleway } from './scaleway.js';
import { spaceship } from './spaceship.js';
import { technitium } from './technitium.js';
import { eranet, nowcn } from './todaynic.js';
import { recordTypes, type DnsProvider, type ProviderContext, type RecordRef, type RecordWant, type SetOutcome } from './types.js';
import { vercel } from './vercel.js';
import { volcengine } from './volcengine.js';
import { vultr } from './vultr.js';

export const PROVIDERS: Readonly<Record<DdnsProviderName, DnsProvider>> = {
  cloudflare,
  alidns,
  dnspod,
  tencentcloud,
  huaweicloud,
  baiducloud,
  volcengine,
  edgeone,
  aliesa,
  dnsla,
  rainyun,
  nowcn,
  eranet,
  porkbun,
  godaddy,
  namesilo,
  namecheap,
  dynv6,
  duckdns,
  desec,
  vercel,
  digitalocean,
  hetzner,
  linode,
  gandi,
  hetznercloud,
  scaleway,
  bunny,
  vultr,
  dnsimple,
  netlify,
  njalla,
  ionos,
  dnsmadeeasy,
  mythicbeasts,
  luadns,
  route53,
  azure,
  ovh,
  cloudns,
  gcore,
  ns1,
  namecom,
  dynadot,
  spaceship,
  dynu,
  noip,
  he,
  callback,
  rfc2136,
  dyndns2,
  powerdns,
  technitium,
};

/** The provider's name as errors quote it. */
export const providerTitle = (name: DdnsProviderName): string => MESSAGES.en_US[DDNS_PROVIDER_INFO[name].label];

export interface ContextOptions {
  creds: DdnsCredentials;
  http: HttpFn;
  timeoutMs: number;
  now: () => Date;
  /** API base URLs by provider: tests and the benchmark only. */
  endpoints?: Partial<Record<DdnsProviderName, string>> | undefined;
  callback?: DdnsCallback;
}

/** What a provider's calls need: the account, its API base, requests that wait out a rate limit where the provider says how long. */
export function providerContext(name: DdnsProviderName, o: ContextOptions): ProviderContext {
  const p = PROVIDERS[name];
  return {
    creds: o.creds,
    http: rateLimited(o.http, providerTitle(name), o.timeoutMs),
    base: o.endpoints?.[name] ?? p.baseOf?.(o.creds) ?? p.base,
    timeoutMs: o.timeoutMs,
    now: o.now,
    ...(o.callback ? { callback: o.callback } : {}),
  };
}

/** Retries of one request a rate limit asks to wait for, each at most this long. */
const LIMIT_RETRIES = 2;
const LIMIT_MAX_WAIT_MS = 10_000;

/** The wait a limited answer asks for: `Retry-After`, else a rate-limit reset (epoch seconds, or seconds from now). */
export function limitWaitMs(headers: Record<string, string>, now: number): number | null {
  const after = retryAfterMs(headers['retry-after'], now);
  if (after !== null) return after;
  const reset = headers['ratelimit-reset'] ?? headers['x-ratelimit-reset'];
  if (reset === undefined || !/^\d+$/.test(reset.trim())) return null;
  const n = Number(reset);
  return n > 1e9 ? Math.max(0, n * 1000 - now) : n * 1000;
}

/**
 * 429 (and 503 saying how long to wait): the request is sent again after the time the provider asks
 * for (`Retry-After`, or when its rate limit resets), at most twice, each wait at most 10 s and
 * within the call's timeout; then, or when it does not say how long, `dnsRateLimited`.
 */
export function rateLimited(http: HttpFn, provider: string, budgetMs: number): HttpFn {
  return async (req) => {
    const end = Date.now() + budgetMs;
    for (let attempt = 0; ; attempt++) {
      const res = await http(req);
      if (res.status !== 429 && res.status !== 503) return res;
      const wait = limitWaitMs(res.headers, Date.now());
      if (wait === null && res.status === 503) return res;
      if (wait === null || attempt >= LIMIT_RETRIES || wait > LIMIT_MAX_WAIT_MS || Date.now() + wait > end) {
        throw new MsgError({ key: 'dnsRateLimited', vars: { provider, status: res.status } });
      }
      await new Promise((r) => setTimeout(r, wait));
    }
  };
}

/** Sets one record; a type the provider cannot set is refused before any call. */
export function setRecord(name: DdnsProviderName, ctx: ProviderContext, want: RecordWant): Promise<SetOutcome> {
  if (!recordTypes(name).includes(want.type)) return Promise.reject(new MsgError({ key: 'dnsTypeUnsupported', vars: { provider: name, type: want.type } }));
  return PROVIDERS[name].set(ctx, want);
}

/** The values of a name's records of a type; null where the provider cannot read them. */
export async function listRecords(name: DdnsProviderName, ctx: ProviderContext, want: RecordRef): Promise<string[] | null> {
  const p = PROVIDERS[name];
  if (!p.list) return null;
  if (!recordTypes(name).includes(want.type)) throw new MsgError({ key: 'dnsTypeUnsupported', vars: { provider: name, type: want.type } });
  return p.list(ctx, want);
}

/** Deletes a name's records of a type (those holding `value` when given), where the provider can; false where it cannot. */
export async function removeRecord(name: DdnsProviderName, ctx: ProviderContext, want: RecordRef): Promise<boolean> {
  const p = PROVIDERS[name];
  if (!p.remove) return false;
  await p.remove(ctx, want);
  return true;
}

export type { DnsProvider, ProviderContext, RecordRef, RecordType, RecordWant, SetOutcome } from './types.js';
