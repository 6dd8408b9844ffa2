/**
 * The one interface every DNS provider implements; `index.ts` holds the registry. A provider sets
 * one record (name, type, value) and says whether it had to write. A/AAAA is what every provider
 * does today; TXT (ACME DNS-01) is a type like the others, added provider by provider (its
 * `txt` in DDNS_PROVIDER_INFO says which have it).
 */
import { DDNS_PROVIDER_INFO, type DdnsCallback, type DdnsCredentials, type DdnsProviderName, type Msg } from '@lucky/contracts';
import type { DomainName } from '../domain.js';
import { excerpt, type HttpFn, type HttpResponse } from '../../http/request.js';
import { MsgError } from '../../msgerror.js';

export type AddressType = 'A' | 'AAAA';
export type RecordType = AddressType | 'TXT';

export interface RecordWant {
  domain: DomainName;
  type: RecordType;
  /** The address for A/AAAA, the text for TXT. */
  value: string;
  /** Already clamped to the provider's minimum. */
  ttl: number;
}

export interface ProviderContext {
  creds: DdnsCredentials;
  http: HttpFn;
  /** The API base URL; differs from the provider's own only in tests. */
  base: string;
  /** The callback provider's request (the other providers have none). */
  callback?: DdnsCallback;
  timeoutMs: number;
  /** Clock for signatures (tests pin it). */
  now: () => Date;
}

/**
 * `same`: the provider's record already holds the value; `created`/`updated`: it was written.
 * Providers that cannot read their records (`canRead` false) always write; DDNS skips the call
 * while the address equals what it last wrote.
 */
export type SetOutcome = 'same' | 'created' | 'updated';

export interface DnsProvider {
  name: DdnsProviderName;
  /** The real API base URL. */
  base: string;
  canRead: boolean;
  set(ctx: ProviderContext, want: RecordWant): Promise<SetOutcome>;
  /** Deletes the name's records of the type (ACME's DNS-01 TXT when done); providers without it leave them. */
  remove?(ctx: ProviderContext, want: Omit<RecordWant, 'value' | 'ttl'>): Promise<void>;
}

/** A provider refused or answered something we cannot use; `detail` is the provider's own text. */
export function providerError(provider: string, detail: string | Msg): MsgError {
  return new MsgError({ key: 'dnsProviderError', vars: { provider, detail } });
}

/** Throws with the status and the start of the body unless the answer is 2xx. */
export function expectOk(res: HttpResponse, provider: string): HttpResponse {
  if (res.status < 200 || res.status > 299) throw httpError(res, provider);
  return res;
}

export function httpError(res: HttpResponse, provider: string, detail = excerpt(res)): MsgError {
  return new MsgError({ key: 'dnsProviderHttp', vars: { provider, status: res.status, detail } });
}

/** The record types a provider can set: A, AAAA where it has IPv6, TXT where it was taught to. */
export function recordTypes(name: DdnsProviderName): RecordType[] {
  const info = DDNS_PROVIDER_INFO[name];
  return ['A', ...(info.ipv6 ? (['AAAA'] as const) : []), ...(info.txt ? (['TXT'] as const) : [])];
}

/** The wanted record's type when the provider sets addresses only. */
export function addressType(want: RecordWant, provider: string): AddressType {
  if (want.type === 'TXT') throw new MsgError({ key: 'dnsTypeUnsupported', vars: { provider, type: want.type } });
  return want.type;
}

/** RFC 3986 percent-encoding (encodeURIComponent leaves !'()* alone). */
export function rfc3986(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Whether a record's value is the one wanted: addresses compare without case, text exactly. */
export function sameValue(have: string | undefined, want: RecordWant): boolean {
  if (have === undefined) return false;
  return want.type === 'TXT' ? have === want.value : have.toLowerCase() === want.value.toLowerCase();
}
