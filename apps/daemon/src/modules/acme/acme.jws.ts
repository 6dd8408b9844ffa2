/**
 * JSON Web Signatures as ACME (RFC 8555 section 6.2) wants them: flattened JSON, the account key's
 * JWK (new account) or its URL (`kid`) in the protected header, ES256 for P-256 keys and RS256 for
 * RSA keys, and the RFC 7638 thumbprint that key authorizations end with. External Account Binding
 * (section 7.3.4) is an HS256 JWS over the account's JWK. Only node:crypto.
 */
import { createHash, createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { MsgError } from '../../lib/msgerror.js';

export const b64u = (b: Buffer | string): string => Buffer.from(b).toString('base64url');

export interface Jwk {
  kty: string;
  crv?: string;
  x?: string;
  y?: string;
  n?: string;
  e?: string;
}

export interface AccountKey {
  key: KeyObject;
  jwk: Jwk;
  alg: 'ES256' | 'RS256';
  /** RFC 7638 thumbprint, base64url. */
  thumbprint: string;
}

/** A new P-256 account key, as PKCS#8 PEM. */
export function newAccountKeyPem(): string {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** The account key of a PEM text (P-256 or RSA); MsgError otherwise. */
export function accountKey(pem: string): AccountKey {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch (err) {
    throw new MsgError({ key: 'acmeBadAccountKey', vars: { detail: (err as Error).message } });
  }
  const pub = createPublicKey(key).export({ format: 'jwk' }) as Jwk;
  let jwk: Jwk;
  let alg: AccountKey['alg'];
  if (pub.kty === 'EC' && pub.crv === 'P-256') {
    jwk = { crv: pub.crv, kty: 'EC', x: pub.x!, y: pub.y! };
    alg = 'ES256';
  } else if (pub.kty === 'RSA') {
    jwk = { e: pub.e!, kty: 'RSA', n: pub.n! };
    alg = 'RS256';
  } else {
    throw new MsgError({ key: 'acmeBadAccountKey', vars: { detail: `${pub.kty} ${pub.crv ?? ''}`.trim() } });
  }
  // The members in lexicographic order, no spaces (RFC 7638 section 3): the object above is built so.
  const thumbprint = b64u(createHash('sha256').update(JSON.stringify(jwk)).digest());
  return { key, jwk, alg, thumbprint };
}

export interface Jws {
  protected: string;
  payload: string;
  signature: string;
}

/** A signed request body. `payload` null is POST-as-GET (an empty payload). */
export function signJws(acct: AccountKey, header: { url: string; nonce: string; kid?: string }, payload: unknown | null): Jws {
  const prot = b64u(
    JSON.stringify({ alg: acct.alg, ...(header.kid ? { kid: header.kid } : { jwk: acct.jwk }), nonce: header.nonce, url: header.url }),
  );
  const body = payload === null ? '' : b64u(JSON.stringify(payload));
  const data = Buffer.from(`${prot}.${body}`);
  const sig = acct.alg === 'ES256' ? sign('sha256', data, { key: acct.key, dsaEncoding: 'ieee-p1363' }) : sign('sha256', data, acct.key);
  return { protected: prot, payload: body, signature: b64u(sig) };
}

/** The externalAccountBinding member of newAccount: the JWK signed with the CA's HMAC key. */
export function eabJws(acct: AccountKey, kid: string, hmacB64u: string, url: string): Jws {
  const prot = b64u(JSON.stringify({ alg: 'HS256', kid, url }));
  const payload = b64u(JSON.stringify(acct.jwk));
  const mac = createHmac('sha256', Buffer.from(hmacB64u, 'base64url')).update(`${prot}.${payload}`).digest();
  return { protected: prot, payload, signature: b64u(mac) };
}

/** What the HTTP-01 resource answers and DNS-01 hashes: token.thumbprint. */
export function keyAuthorization(token: string, acct: AccountKey): string {
  return `${token}.${acct.thumbprint}`;
}

/** The TXT value of DNS-01: base64url(SHA-256(key authorization)). */
export function dnsTxtValue(keyAuth: string): string {
  return b64u(createHash('sha256').update(keyAuth).digest());
}
