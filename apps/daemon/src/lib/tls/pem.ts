/**
 * Certificates as PEM text: read from the text itself or from files, checked (a certificate, a
 * private key, and that the key is the certificate's own), and what the certificate says: the names
 * it is for and when it expires. No state and no zod: the certificate store and the web serving
 * threads both use it.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Msg } from '@lucky/contracts';
import { renderMsg } from '@lucky/contracts/runtime';

/** Why a certificate cannot be used, as a message for the reader's language. */
export class TlsError extends Error {
  constructor(
    readonly msg: Msg,
    /** Waiting may mend it (a file that is not there yet); a bad PEM text stays bad. */
    readonly retry = false,
  ) {
    super(renderMsg('en_US', msg));
  }
}

/** What a certificate says about itself. */
export interface CertFacts {
  /** DNS names of its subjectAltName, else its common name; lower case. */
  names: string[];
  /** Validity, in ms since the epoch. */
  notBefore: number;
  notAfter: number;
  subject: string;
  issuer: string;
  /** SHA-256 fingerprint, to tell two versions of a certificate apart. */
  fingerprint: string;
}

/**
 * A certificate a rule carries: PEM text, or the paths of its files (as web rules have them), or
 * (`store`) the name of a certificate of the store in `cert`, which the certificates service reads.
 */
export interface CertSource {
  source: 'pem' | 'file' | 'store';
  cert: string;
  key: string;
  /** The names it serves; empty = the names inside the certificate. */
  domains: readonly string[];
}

/** A certificate ready to serve: its PEM texts (the chain as given) and the names it serves. */
export interface TlsCert {
  cert: string;
  key: string;
  names: string[];
  notAfter: number;
}

const detailOf = (err: unknown) => String((err as Error)?.message ?? err);

export function namesOf(x: X509Certificate): string[] {
  const names = (x.subjectAltName ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.startsWith('DNS:'))
    .map((s) => s.slice(4).toLowerCase());
  if (names.length) return names;
  const cn = /(?:^|\n)CN=([^\n]+)/.exec(x.subject)?.[1];
  return cn ? [cn.trim().toLowerCase()] : [];
}

/** The facts of a PEM certificate (the first of a chain); TlsError when it is not one. */
export function certificateFacts(cert: string): CertFacts {
  let x: X509Certificate;
  try {
    x = new X509Certificate(cert);
  } catch (err) {
    throw new TlsError({ key: 'certBadPem', vars: { detail: detailOf(err) } });
  }
  return factsOf(x);
}

function factsOf(x: X509Certificate): CertFacts {
  return {
    names: namesOf(x),
    notBefore: Date.parse(x.validFrom),
    notAfter: Date.parse(x.validTo),
    subject: x.subject.replace(/\n/g, ', '),
    issuer: x.issuer.replace(/\n/g, ', '),
    fingerprint: x.fingerprint256,
  };
}

/** Checks that `cert` is a certificate, `key` a private key, and the key the certificate's own. */
export function checkPair(cert: string, key: string): CertFacts {
  let x: X509Certificate;
  try {
    x = new X509Certificate(cert);
  } catch (err) {
    throw new TlsError({ key: 'certBadPem', vars: { detail: detailOf(err) } });
  }
  let k: ReturnType<typeof createPrivateKey>;
  try {
    k = createPrivateKey(key);
  } catch (err) {
    throw new TlsError({ key: 'certBadKey', vars: { detail: detailOf(err) } });
  }
  if (!x.checkPrivateKey(k)) throw new TlsError({ key: 'certKeyMismatch' });
  return factsOf(x);
}

/**
 * A rule's certificates read (files) and checked, in order; the first problem is thrown as a
 * TlsError that names the certificate by its place in the list (1, 2...).
 */
export async function readCertSources(list: readonly CertSource[]): Promise<TlsCert[]> {
  const out: TlsCert[] = [];
  for (const [i, c] of list.entries()) {
    const n = i + 1;
    const file = c.source === 'file';
    let cert = c.cert;
    let key = c.key;
    if (c.source === 'store') throw new TlsError({ key: 'certStoreMissing', vars: { n, name: c.cert } }, true);
    if (file) {
      try {
        [cert, key] = await Promise.all([readFile(c.cert, 'utf8'), readFile(c.key, 'utf8')]);
      } catch (err) {
        throw new TlsError({ key: 'statusCertUnreadable', vars: { n, detail: detailOf(err) } }, true);
      }
    }
    let facts: CertFacts;
    try {
      facts = checkPair(cert, key);
    } catch (err) {
      if (!(err instanceof TlsError)) throw err;
      // Files may be replaced by a renewal; text saved in the rule stays what it is.
      throw new TlsError({ key: 'certInRule', vars: { n, detail: err.msg } }, file);
    }
    out.push({ cert, key, names: c.domains.length ? [...c.domains] : facts.names, notAfter: facts.notAfter });
  }
  return out;
}
