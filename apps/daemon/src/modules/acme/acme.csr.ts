/**
 * The certificate key and a PKCS#10 certificate signing request (RFC 2986) for ACME's finalize:
 * DER written with lib/tls/der, the names in a subjectAltName extension
 * request, signed with the new key. node:crypto makes and signs; it does not build CSRs.
 */
import { generateKeyPairSync, createPublicKey, sign, type KeyObject } from 'node:crypto';
import type { AcmeKeyType } from '@lucky/contracts';
import { oid, seq, set, tlv } from '../../lib/tls/der.js';

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
