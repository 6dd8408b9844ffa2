/**
 * The one interface every DNS provider implements; `index.ts` holds the registry. A provider sets
 * one record (name, type, value) and says whether it had to write. A/AAAA is what every provider
 * does; TXT (ACME DNS-01) is a type like the others where the provider's API has it (its `txt` in
 * DDNS_PROVIDER_INFO says which).
 *
 * TXT, the same way as addresses: `set` is `same` when a TXT record of the name already holds the
 * value (compared exactly); otherwise the name's TXT record is rewritten (`updated`: the first one
 * where the API keeps records one by one, the whole RRset where it keeps sets) or added (`created`).
 * An order answers its authorizations one after another, so `example.com` and `*.example.com`, which
 * share one record name, never need two values at once. `remove` with a value deletes only the
 * records holding it (a set keeps its other values), so a record somebody else added meanwhile
 * stays; without a value, or where the API cannot tell records apart (DuckDNS's one TXT per
 * domain), every TXT record of the name goes.
 */
import { DDNS_PROVIDER_INFO, type DdnsCallback, type DdnsCredentials, type DdnsProviderName, type Msg } from '@lucky/contracts';
import type { DomainName } from '../domain.js';
import { excerpt, type HttpFn, type HttpResponse } from '../../http/request.js';
import { MsgError } from '../../msgerror.js';

export type AddressType = 'A' | 'AAAA';
/** SRV and HTTPS values in their zone-file form: `0 0 8443 ha.example.com.`, `1 . alpn=h2 port=8443`. */
export type RecordType = AddressType | 'TXT' | 'SRV' | 'HTTPS';
/** What every provider's description may name: the types the registry lets through to most of them. */
export type BasicRecordType = AddressType | 'TXT';

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
 * Providers that cannot read their records (their description's `read` false) always write; DDNS
 * skips the call while the address equals what it last wrote.
 */
export type SetOutcome = 'same' | 'created' | 'updated';

/** The records `remove` deletes: the name's of the type, only those holding `value` when given. */
export interface RecordRef {
  domain: DomainName;
  type: RecordType;
  value?: string;
}

export interface DnsProvider {
  name: DdnsProviderName;
  /** The real API base URL. */
  base: string;
  /** The API base URL of an account where it depends on it (a region's endpoint); `base` otherwise. */
  baseOf?(creds: DdnsCredentials): string;
  set(ctx: ProviderContext, want: RecordWant): Promise<SetOutcome>;
  /** The values of the name's records of the type (TXT: the texts), where the provider can read them. */
  list?(ctx: ProviderContext, want: RecordRef): Promise<string[]>;
  /** Deletes the name's records of the type (ACME's DNS-01 TXT when done); providers without it leave them. */
  remove?(ctx: ProviderContext, want: RecordRef): Promise<void>;
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

/** An answer that is not 2xx; 401 and 403 say the credentials were refused. */
export function httpError(res: HttpResponse, provider: string, detail = excerpt(res)): MsgError {
  const key = res.status === 401 || res.status === 403 ? 'dnsAuthFailed' : 'dnsProviderHttp';
  return new MsgError({ key, vars: { provider, status: res.status, detail } });
}

/** HTTP basic authentication with the account's `id` and `secret`. */
export const basicAuth = (creds: DdnsCredentials): string => `Basic ${Buffer.from(`${creds.id}:${creds.secret}`).toString('base64')}`;

/** The account holds no zone the name could be in. */
export function zoneNotFound(provider: string, zone: string): MsgError {
  return new MsgError({ key: 'dnsZoneNotFound', vars: { provider, zone } });
}

/** The zone of the account's list named `root`; `dnsZoneNotFound` when there is none. */
export function zoneNamed<T>(zones: readonly T[] | undefined, nameOf: (z: T) => string, provider: string, root: string): T {
  const zone = zones?.find((z) => nameOf(z) === root);
  if (!zone) throw zoneNotFound(provider, root);
  return zone;
}

/** `www` of `www.example.com`, '' at the zone apex (APIs that name the apex by an empty name). */
export const relativeName = (d: DomainName): string => (d.sub === '@' ? '' : d.sub);

/** The record types a provider can set, as its description says: A, AAAA where it has IPv6, TXT where its API has them. */
export function recordTypes(name: DdnsProviderName): RecordType[] {
  return [...DDNS_PROVIDER_INFO[name].records];
}

/** The wanted record's type when the provider sets addresses only. */
export function addressType(want: RecordWant, provider: string): AddressType {
  if (want.type !== 'A' && want.type !== 'AAAA') throw new MsgError({ key: 'dnsTypeUnsupported', vars: { provider, type: want.type } });
  return want.type;
}

export { rfc3986 } from '../../http/sign/encode.js';

/** Whether a record's value is the one wanted: addresses compare without case, text exactly. */
export function sameValue(have: string | undefined, want: RecordWant): boolean {
  if (have === undefined) return false;
  return want.type === 'TXT' ? have === want.value : have.toLowerCase() === want.value.toLowerCase();
}

/**
 * The record `set` rewrites among the name's records of the type: for TXT the one already holding
 * the value (then `same`), else the first.
 */
export function pickRecord<T>(records: readonly T[], valueOf: (r: T) => string, want: RecordWant): T | undefined {
  return (want.type === 'TXT' ? records.find((r) => sameValue(valueOf(r), want)) : undefined) ?? records[0];
}

/** Whether an RRset already is what `set` makes it: TXT holds the value among others, an address is the only one. */
export function setHolds(values: readonly string[], want: RecordWant): boolean {
  return want.type === 'TXT' ? values.some((v) => sameValue(v, want)) : values.length === 1 && sameValue(values[0], want);
}

/** The records `remove` deletes: those holding the value when one is given, else all. */
export function recordsToRemove<T>(records: readonly T[], valueOf: (r: T) => string, want: RecordRef): T[] {
  return want.value === undefined ? [...records] : records.filter((r) => valueOf(r) === want.value);
}

/** A TXT value as one quoted character-string (APIs that take zone-file text: Cloudflare, Huawei, deSEC). */
export function quoteTxt(text: string): string {
  return `"${text.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

/** The text of zone-file TXT data: quoted character-strings joined (escapes undone); unquoted text as it is. */
export function unquoteTxt(data: string): string {
  const s = data.trim();
  if (!s.startsWith('"')) return data;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== '"') continue;
    for (i++; i < s.length && s[i] !== '"'; i++) {
      if (s[i] !== '\\') out += s[i];
      else if (/^\d{3}$/.test(s.slice(i + 1, i + 4))) {
        out += String.fromCharCode(Number(s.slice(i + 1, i + 4)));
        i += 3;
      } else out += s[++i] ?? '';
    }
  }
  return out;
}

/** The value of a record as a provider keeps it: TXT unquoted where the API quotes it. */
export function quotedValue(type: string, data: string): string {
  return type === 'TXT' ? unquoteTxt(data) : data;
}
