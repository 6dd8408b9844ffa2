/**
 * A self-signed certificate for names, made in memory: what an HTTPS rule with an automatic
 * certificate answers with until the CA has issued the real one, so that its listener (and its
 * HTTP companion that the CA checks) runs from the first second. Browsers warn on it; nothing is
 * meant to trust it. X.509 v3 in DER through lib/tls/der, signed by node:crypto.
 */
import { createPublicKey, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { explicit, int, octets, oid, seq, set, tlv } from './der.js';
import type { TlsCert } from './pem.js';

const ECDSA_SHA256 = '1.2.840.10045.4.3.2';
const COMMON_NAME = '2.5.4.3';
const SUBJECT_ALT_NAME = '2.5.29.17';
const DAY = 86_400_000;

/** GeneralizedTime: valid for every year, where UTCTime stops at 2049. */
const time = (ms: number) => tlv(0x18, Buffer.from(`${new Date(ms).toISOString().slice(0, 19).replace(/[-:T]/g, '')}Z`, 'ascii'));
const pem = (label: string, der: Buffer) => `-----BEGIN ${label}-----\n${der.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END ${label}-----\n`;

/** An EC P-256 certificate for `names` (the first is its common name), valid from a day ago for `days`. */
export function selfSigned(names: readonly string[], days = 30): TlsCert {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const now = Date.now();
  const first = (names[0] ?? 'lucky').slice(0, 64);
  const name = seq(set(seq(oid(COMMON_NAME), tlv(0x0c, Buffer.from(first, 'utf8')))));
  const algorithm = seq(oid(ECDSA_SHA256));
  const san = seq(...names.map((n) => tlv(0x82, Buffer.from(n, 'ascii'))));
  const serial = randomBytes(16);
  serial[0]! &= 0x7f;
  const tbs = seq(
    explicit(0, int(2)),
    int(serial),
    algorithm,
    name,
    seq(time(now - DAY), time(now + days * DAY)),
    name,
    createPublicKey(privateKey).export({ type: 'spki', format: 'der' }),
    explicit(3, seq(seq(oid(SUBJECT_ALT_NAME), octets(san)))),
  );
  const der = seq(tbs, algorithm, tlv(0x03, Buffer.from([0]), sign('sha256', tbs, privateKey)));
  return {
    cert: pem('CERTIFICATE', der),
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    names: [...names],
    notAfter: now + days * DAY,
  };
}
