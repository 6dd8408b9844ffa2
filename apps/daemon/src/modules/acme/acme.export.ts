/**
 * A certificate and its key as files to take elsewhere: the chain, the key, both in one PEM
 * (HAProxy, some NAS boxes), or PKCS#12 (RFC 7292) for Windows and IIS. node:crypto encrypts the key
 * (PBES2: PBKDF2-SHA256, AES-256-CBC, as OpenSSL 3 writes PKCS#12 by default); the file around it
 * and its integrity MAC are written here. Certificates are not encrypted (they are public), which is
 * what `openssl pkcs12 -certpbe NONE` writes and what Windows imports.
 */
import { createHash, createHmac, createPrivateKey, randomBytes, X509Certificate } from 'node:crypto';
import type { AcmeExportFormat } from '@lucky/contracts';
import { explicit, int, octets, oid, seq, set, tlv } from '../../lib/tls/der.js';

const OID = {
  data: '1.2.840.113549.1.7.1',
  shroudedKeyBag: '1.2.840.113549.1.12.10.1.2',
  certBag: '1.2.840.113549.1.12.10.1.3',
  x509Certificate: '1.2.840.113549.1.9.22.1',
  friendlyName: '1.2.840.113549.1.9.20',
  localKeyId: '1.2.840.113549.1.9.21',
  sha256: '2.16.840.1.101.3.4.2.1',
};

const MAC_ITERATIONS = 2048;

/** The certificates of a PEM chain, in order. */
export function pemChain(pem: string): X509Certificate[] {
  return (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((b) => new X509Certificate(b));
}

const bmp = (s: string) => Buffer.from(s, 'utf16le').swap16();

/** The key RFC 7292 appendix B derives from a password (here for the MAC: id 3, SHA-256). */
export function pkcs12Kdf(password: string, salt: Buffer, id: number, iterations: number, bytes: number): Buffer {
  const u = 32;
  const v = 64;
  const fill = (b: Buffer) => {
    if (b.length === 0) return Buffer.alloc(0);
    const out = Buffer.alloc(v * Math.ceil(b.length / v));
    for (let i = 0; i < out.length; i++) out[i] = b[i % b.length]!;
    return out;
  };
  const D = Buffer.alloc(v, id);
  const I = Buffer.concat([fill(salt), fill(Buffer.concat([bmp(password), Buffer.alloc(2)]))]);
  const out: Buffer[] = [];
  for (let done = 0; done < bytes; done += u) {
    let A = createHash('sha256').update(D).update(I).digest();
    for (let r = 1; r < iterations; r++) A = createHash('sha256').update(A).digest();
    out.push(A);
    // I_j = (I_j + B + 1) mod 2^(8v) for every v-byte block, B being A repeated to v bytes.
    const B = fill(A);
    for (let j = 0; j < I.length; j += v) {
      let carry = 1;
      for (let k = v - 1; k >= 0; k--) {
        const sum = I[j + k]! + B[k]! + carry;
        I[j + k] = sum & 0xff;
        carry = sum >> 8;
      }
    }
  }
  return Buffer.concat(out).subarray(0, bytes);
}

const attributes = (keyId: Buffer, name: string) =>
  set(seq(oid(OID.friendlyName), set(tlv(0x1e, bmp(name)))), seq(oid(OID.localKeyId), set(octets(keyId))));

const dataContent = (der: Buffer) => seq(oid(OID.data), explicit(0, octets(der)));

/** A PKCS#12 file of the chain and its key, the key under `password`, named `name` (friendlyName). */
export function toPfx(chainPem: string, keyPem: string, password: string, name: string): Buffer {
  const certs = pemChain(chainPem);
  const leaf = certs[0];
  if (!leaf) throw new Error('no certificate');
  // Windows pairs the key with its certificate by this id; OpenSSL uses the leaf's SHA-1 too.
  const keyId = createHash('sha1').update(leaf.raw).digest();
  const certBags = certs.map((c, i) =>
    seq(oid(OID.certBag), explicit(0, seq(oid(OID.x509Certificate), explicit(0, octets(c.raw)))), ...(i === 0 ? [attributes(keyId, name)] : [])),
  );
  const shrouded = createPrivateKey(keyPem).export({ type: 'pkcs8', format: 'der', cipher: 'aes-256-cbc', passphrase: password });
  const keyBag = seq(oid(OID.shroudedKeyBag), explicit(0, shrouded), attributes(keyId, name));
  const authSafe = seq(dataContent(seq(...certBags)), dataContent(seq(keyBag)));
  const salt = randomBytes(16);
  const macKey = pkcs12Kdf(password, salt, 3, MAC_ITERATIONS, 32);
  const mac = createHmac('sha256', macKey).update(authSafe).digest();
  const macData = seq(seq(seq(oid(OID.sha256), tlv(0x05)), octets(mac)), octets(salt), int(MAC_ITERATIONS));
  return seq(int(3), dataContent(authSafe), macData);
}

export interface ExportFile {
  name: string;
  type: string;
  body: Buffer;
}

/** The file of one format for the certificate stored under `name`. */
export function exportFile(name: string, cert: string, key: string, format: AcmeExportFormat, password: string): ExportFile {
  const text = (s: string) => Buffer.from(s.endsWith('\n') ? s : `${s}\n`);
  switch (format) {
    case 'fullchain':
      return { name: `${name}.fullchain.pem`, type: 'application/x-pem-file', body: text(cert) };
    case 'key':
      return { name: `${name}.key.pem`, type: 'application/x-pem-file', body: text(key) };
    case 'bundle':
      return { name: `${name}.pem`, type: 'application/x-pem-file', body: Buffer.concat([text(key), text(cert)]) };
    case 'pfx':
      return { name: `${name}.pfx`, type: 'application/x-pkcs12', body: toPfx(cert, key, password, name) };
  }
}
