/**
 * AWS Signature Version 4, and the variant Volcengine uses (the same steps with its own algorithm
 * name, no `AWS4` key prefix, `request` as the scope's last part and `X-Date`). The canonical request:
 * method, path (each segment RFC 3986-encoded), query sorted by name then value, the signed headers
 * (lower case, sorted, values trimmed with inner runs of spaces made one), their names, the body's
 * SHA-256; then the string to sign and the key derived through date, region and service.
 */
import { createHash, createHmac } from 'node:crypto';
import { rfc3986 } from './encode.js';

const sha256hex = (s: string) => createHash('sha256').update(s).digest('hex');
const hmac = (key: Buffer | string, s: string) => createHmac('sha256', key).update(s).digest();

export interface V4Scheme {
  /** `AWS4-HMAC-SHA256` / `HMAC-SHA256`. */
  algorithm: string;
  /** Put before the secret for the first key: `AWS4` / ''. */
  keyPrefix: string;
  /** The scope's last part: `aws4_request` / `request`. */
  terminator: string;
  /** The header holding the time: `x-amz-date` / `x-date`. */
  dateHeader: string;
}

export const AWS_V4: V4Scheme = { algorithm: 'AWS4-HMAC-SHA256', keyPrefix: 'AWS4', terminator: 'aws4_request', dateHeader: 'x-amz-date' };
export const VOLCENGINE_V4: V4Scheme = { algorithm: 'HMAC-SHA256', keyPrefix: '', terminator: 'request', dateHeader: 'x-date' };

export interface V4Request {
  method: string;
  url: URL;
  /** Headers to sign besides host and the date (lower-case names). */
  headers: Record<string, string>;
  body: string;
  /**
   * The payload's hash as signed, instead of the body's SHA-256: S3's `UNSIGNED-PAYLOAD` for a body
   * streamed (not known in advance); the caller sends it as `x-amz-content-sha256` too.
   */
  payloadHash?: string;
  accessKey: string;
  secretKey: string;
  region: string;
  service: string;
  date: Date;
}

/** `20150830T123600Z` */
export const amzDate = (d: Date): string => d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

export function canonicalQuery(url: URL): string {
  return [...url.searchParams.entries()]
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) : a[0] < b[0] ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

/** The request's headers with the date and `authorization` added. */
export function signV4(scheme: V4Scheme, r: V4Request): Record<string, string> {
  const stamp = amzDate(r.date);
  const day = stamp.slice(0, 8);
  const headers: Record<string, string> = { ...r.headers, host: r.url.host, [scheme.dateHeader]: stamp };
  const names = Object.keys(headers).map((h) => h.toLowerCase()).sort();
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const canonHeaders = names.map((h) => `${h}:${lower[h]!.trim().replace(/\s+/g, ' ')}\n`).join('');
  const path = r.url.pathname.split('/').map((s) => rfc3986(decodeURIComponent(s))).join('/') || '/';
  const canonical = [r.method, path, canonicalQuery(r.url), canonHeaders, names.join(';'), r.payloadHash ?? sha256hex(r.body)].join('\n');
  const scope = `${day}/${r.region}/${r.service}/${scheme.terminator}`;
  const toSign = [scheme.algorithm, stamp, scope, sha256hex(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`${scheme.keyPrefix}${r.secretKey}`, day), r.region), r.service), scheme.terminator);
  const signature = createHmac('sha256', key).update(toSign).digest('hex');
  return { ...headers, authorization: `${scheme.algorithm} Credential=${r.accessKey}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}` };
}
