/**
 * Alibaba Cloud's RPC signature, version 1.0 (HMAC-SHA1 over the sorted, encoded query): AliDNS,
 * ESA, and Eranet, whose API signs the same way with its own name for the key id.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { rfc3986 } from './encode.js';

export function aliSign(params: Record<string, string>, secret: string, method = 'GET'): string {
  const canon = Object.keys(params)
    .sort()
    .map((k) => `${rfc3986(k)}=${rfc3986(params[k]!)}`)
    .join('&');
  const toSign = `${method}&${rfc3986('/')}&${rfc3986(canon)}`;
  return createHmac('sha1', `${secret}&`).update(toSign).digest('base64');
}

/** The common parameters of Alibaba Cloud's RPC APIs (AliDNS, ESA). */
export const ALI_RPC: Readonly<Record<string, string>> = { Format: 'JSON', SignatureMethod: 'HMAC-SHA1', SignatureVersion: '1.0' };

/** The signed query string of one call: its parameters, a nonce, the time, `Signature`. */
export function aliSignedQuery(params: Record<string, string>, o: { secret: string; now: Date; method?: string }): string {
  const all: Record<string, string> = {
    SignatureNonce: randomUUID(),
    Timestamp: o.now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    ...params,
  };
  all.Signature = aliSign(all, o.secret, o.method);
  return Object.entries(all)
    .map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`)
    .join('&');
}
