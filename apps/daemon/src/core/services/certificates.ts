/**
 * `certificates`: the daemon's one certificate store (named certificates with their keys, kept in
 * lucky.db) and the reading of the certificates a rule carries itself (PEM text or file paths), so
 * that every TLS listener (web services, WebDAV, FTPS) checks and loads them the same way. ACME puts
 * the certificates it obtains here; a listener that uses one hears of its renewal through `onChange`
 * and swaps it in without dropping connections. Problems are thrown as TlsError, a message.
 */
import type { MinTls, ServerTls } from '../../lib/tls/contexts.js';
import type { CertFacts, CertSource, TlsCert } from '../../lib/tls/pem.js';

/** A certificate of the store, without its key. */
export interface StoredCertificate extends CertFacts {
  name: string;
  created: number;
  updated: number;
}

export interface CertificatesService {
  list(): StoredCertificate[];
  /** With the PEM texts: the certificate (chain) and its private key. */
  get(name: string): (StoredCertificate & { cert: string; key: string }) | undefined;
  /** Stores or replaces a certificate; a bad PEM or a key of another certificate is refused and nothing changes. */
  put(name: string, cert: string, key: string): StoredCertificate;
  remove(name: string): boolean;
  /** Called after a certificate is stored, replaced (`now`) or removed (null); returns the unsubscribe. */
  onChange(listener: (name: string, now: StoredCertificate | null) => void): () => void;
  /** Checks a PEM certificate and key that belong together; what the certificate says. */
  check(cert: string, key: string): CertFacts;
  /** A rule's certificates, read and checked in order. */
  resolve(certs: readonly CertSource[]): Promise<TlsCert[]>;
  /** A rule's certificates as a TLS server uses them (the first one for unknown names). */
  serverTls(certs: readonly CertSource[], minTls: MinTls): Promise<ServerTls>;
}
