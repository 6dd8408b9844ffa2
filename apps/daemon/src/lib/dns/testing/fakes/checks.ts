/**
 * Signature checks several stand-ins share, written from the providers' documentation (not shared
 * with the clients): Tencent Cloud API 3.0's TC3-HMAC-SHA256 (DNSPod, Tencent Cloud DNS, EdgeOne)
 * and Alibaba's RPC signature v1.0 (AliDNS, ESA; Eranet with its own key-id parameter).
 */
import { createHmac } from 'node:crypto';
import { hmacHex, pctEncode, Reject, safeEq, sha256hex, type FakeCreds, type Req } from '../fakeserver.js';

/** A refusal as Tencent Cloud answers it: HTTP 200, `Response.Error`. */
export const tencentError = (code: string, msg: string) => new Reject(200, { Response: { Error: { Code: code, Message: msg }, RequestId: 'x' } }, code);

/** Checks a request's TC3-HMAC-SHA256 signature; the service it was signed for. */
export function checkTc3(r: Req, c: FakeCreds): string {
  const m = /^TC3-HMAC-SHA256 Credential=([^/]+)\/(\d{4}-\d\d-\d\d)\/([^/]+)\/tc3_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(String(r.headers.authorization ?? ''));
  if (!m) throw tencentError('AuthFailure.InvalidAuthorization', 'Authorization header malformed');
  const [, secretId, date, service, signedHeaders, signature] = m as unknown as [string, string, string, string, string, string];
  if (secretId !== c.id) throw tencentError('AuthFailure.SecretIdNotFound', 'SecretId not found');
  const ts = Number(r.headers['x-tc-timestamp']);
  if (!Number.isFinite(ts) || Math.abs(Date.now() / 1000 - ts) > 300) throw tencentError('AuthFailure.SignatureExpire', 'expired');
  if (new Date(ts * 1000).toISOString().slice(0, 10) !== date) throw tencentError('AuthFailure.InvalidAuthorization', 'date');
  const canonHeaders = signedHeaders
    .split(';')
    .map((h) => `${h}:${String(r.headers[h] ?? '').trim().toLowerCase()}\n`)
    .join('');
  const canonical = [r.method, '/', r.url.search.slice(1), canonHeaders, signedHeaders, sha256hex(r.body)].join('\n');
  const toSign = ['TC3-HMAC-SHA256', String(ts), `${date}/${service}/tc3_request`, sha256hex(canonical)].join('\n');
  const k1 = createHmac('sha256', `TC3${c.secret}`).update(date).digest();
  const k2 = createHmac('sha256', k1).update(service).digest();
  const k3 = createHmac('sha256', k2).update('tc3_request').digest();
  if (!safeEq(hmacHex(k3, toSign), signature)) throw tencentError('AuthFailure.SignatureFailure', 'The provided credentials could not be validated.');
  return service;
}

/** A refusal as Alibaba Cloud answers it. */
export const aliError = (code: string, msg: string, status = 400) => new Reject(status, { Code: code, Message: msg, RequestId: 'x' }, code);

/** Checks an Alibaba RPC v1 signed query (key id in `keyParam`, nonce once, time within 15 min); its parameters. */
export function checkAliRpc(r: Req, c: FakeCreds, nonces: Set<string>, keyParam = 'AccessKeyId', versioned = true): Record<string, string> {
  const q = Object.fromEntries(r.url.searchParams.entries());
  if (q[keyParam] !== c.id) throw aliError('InvalidAccessKeyId.NotFound', 'Specified access key is not found.', 404);
  if (q.SignatureMethod !== 'HMAC-SHA1' || (versioned && q.SignatureVersion !== '1.0')) throw aliError('InvalidParameter', 'bad signature method');
  const ts = Date.parse(q.Timestamp ?? '');
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(q.Timestamp ?? '') || Math.abs(Date.now() - ts) > 15 * 60_000) throw aliError('InvalidTimeStamp.Expired', 'timestamp');
  if (!q.SignatureNonce || nonces.has(q.SignatureNonce)) throw aliError('SignatureNonceUsed', 'nonce used');
  const { Signature, ...rest } = q;
  const canon = Object.keys(rest)
    .sort()
    .map((k) => `${pctEncode(k)}=${pctEncode(rest[k]!)}`)
    .join('&');
  const expect = createHmac('sha1', `${c.secret}&`).update(`${r.method}&%2F&${pctEncode(canon)}`).digest('base64');
  if (!Signature || !safeEq(Signature, expect)) throw aliError('SignatureDoesNotMatch', 'Specified signature is not matched with our calculation.');
  nonces.add(q.SignatureNonce);
  return q;
}
