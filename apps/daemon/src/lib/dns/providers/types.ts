/** The one interface every DNS provider implements; `index.ts` holds the registry map. */
import type { DdnsCallback, DdnsCredentials, DdnsProviderName } from '@lucky/contracts';
import type { DomainName } from '../domain.js';
import type { HttpFn, HttpResponse } from '../http.js';

export type RecordType = 'A' | 'AAAA';

export interface RecordWant {
  domain: DomainName;
  type: RecordType;
  ip: string;
  /** Already clamped to the provider's minimum. */
  ttl: number;
}

export interface ProviderContext {
  creds: DdnsCredentials;
  http: HttpFn;
  /** The API base URL; differs from the provider's own only in tests. */
  base: string;
  callback: DdnsCallback;
  timeoutMs: number;
  /** Clock for signatures (tests pin it). */
  now: () => Date;
}

/**
 * `same`: the provider's record already holds the address; `created`/`updated`: it was written.
 * Providers that cannot read their records (`canRead` false) always write; the engine skips the
 * call while the address equals what it last wrote.
 */
export type SyncOutcome = 'same' | 'created' | 'updated';

export interface DnsProvider {
  name: DdnsProviderName;
  /** The real API base URL. */
  base: string;
  canRead: boolean;
  sync(ctx: ProviderContext, want: RecordWant): Promise<SyncOutcome>;
}

export class ProviderError extends Error {}

/** Throws with the status and the start of the body unless the answer is 2xx. */
export function expectOk(res: HttpResponse, what: string): HttpResponse {
  if (res.status < 200 || res.status > 299) throw new ProviderError(`${what}: HTTP ${res.status} ${res.text.slice(0, 300)}`);
  return res;
}

/** RFC 3986 percent-encoding (encodeURIComponent leaves !'()* alone). */
export function rfc3986(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function sameIp(a: string | undefined, b: string): boolean {
  return a !== undefined && a.toLowerCase() === b.toLowerCase();
}
