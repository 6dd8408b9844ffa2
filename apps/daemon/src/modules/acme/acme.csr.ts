/**
 * The certificate key and a PKCS#10 certificate signing request (RFC 2986) for ACME's finalize:
 * a small DER encoder (only the types a CSR needs), the names in a subjectAltName extension
 * request, signed with the new key. node:crypto makes and signs; it does not build CSRs.
 */
import { generateKeyPairSync, createPublicKey, sign, type KeyObject } from 'node:crypto';
import type { AcmeKeyType } from '@lucky/contracts';

function len(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** One TLV: tag, length, value. */
export function tlv(tag: number, ...parts: Buffer[]): Buffer {
  const value = Buffer.concat(parts);
  return Buffer.concat([Buffer.from([tag]), len(value.length), value]);
}

export const seq = (...parts: Buffer[]) => tlv(0x30, ...parts);
export const set = (...parts: Buffer[]) => tlv(0x31, ...parts);

export function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const out = [a! * 40 + b!];
  for (const n of rest) {
    const groups: number[] = [];
    let v = n;
    do {
      groups.unshift(v & 0x7f);
      v = Math.floor(v / 128);
    } while (v > 0);
    for (let i = 0; i < groups.length - 1; i++) groups[i]! |= 0x80;
    out.push(...groups);
  }
  return tlv(0x06, Buffer.from(out));
}

const OID = {
  commonName: '2.5.4.3',
  extensionRequest: '1.2.840.113549.1.9.14',
  subjectAltName: '2.5.29.17',
  ecdsaSha256: '1.2.840.10045.4.3.2',
  rsaSha256: '1.2.840.113549.1.1.11',
};

/** A new certificate key of the type asked for, as PKCS#8 PEM and as a KeyObject. */
export function newCertKey(type: AcmeKeyType): { key: KeyObject; pem: string } {
  const { privateKey } =
    type === 'ec256'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : generateKeyPairSync('rsa', { modulusLength: type === 'rsa2048' ? 2048 : 4096 });
  return { key: privateKey, pem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

/** A DER CSR for the names (the first is the subject's CN when it fits 64 characters), signed with `key`. */
export function buildCsr(names: readonly string[], key: KeyObject): Buffer {
  const first = names[0] ?? '';
  const subject = first && first.length <= 64 ? seq(set(seq(oid(OID.commonName), tlv(0x0c, Buffer.from(first, 'utf8'))))) : seq();
  const spki = createPublicKey(key).export({ type: 'spki', format: 'der' });
  const san = seq(...names.map((n) => tlv(0x82, Buffer.from(n, 'ascii'))));
  const extensions = seq(seq(oid(OID.subjectAltName), tlv(0x04, san)));
  const attributes = tlv(0xa0, seq(oid(OID.extensionRequest), set(extensions)));
  const info = seq(tlv(0x02, Buffer.from([0])), subject, spki, attributes);
  const ec = key.asymmetricKeyType === 'ec';
  const algorithm = ec ? seq(oid(OID.ecdsaSha256)) : seq(oid(OID.rsaSha256), tlv(0x05));
  // ECDSA signatures in a CSR are DER (Node's default encoding).
  const signature = sign('sha256', info, key);
  return seq(info, algorithm, tlv(0x03, Buffer.from([0]), signature));
}
