/**
 * What a TLS server needs from a list of certificates: its own options (the first certificate, the
 * lowest version allowed) and the context to answer each ClientHello with, by server name (SNI).
 * Built fresh for each version of a rule, so that a running server swaps it in without a restart.
 */
import { createSecureContext, type SecureContext, type SecureVersion } from 'node:tls';
import { DomainMatcher } from '../domainmatch.js';
import { TlsError, type TlsCert } from './pem.js';

export type MinTls = '1.0' | '1.1' | '1.2' | '1.3';

export const TLS_VERSIONS: Record<MinTls, SecureVersion> = { '1.0': 'TLSv1', '1.1': 'TLSv1.1', '1.2': 'TLSv1.2', '1.3': 'TLSv1.3' };

export interface ServerTls {
  /** For createServer and setSecureContext: the first certificate is the one for unknown names. */
  readonly options: { cert: string; key: string; minVersion: SecureVersion };
  /** The first certificate's context, for a TLSSocket made by hand (port forwarding). */
  readonly secureContext: SecureContext;
  /** The context for a server name (lower case); undefined = the server's own (the first certificate). */
  context(servername: string): SecureContext | undefined;
}

export function serverTls(certs: readonly TlsCert[], minTls: MinTls): ServerTls {
  const first = certs[0];
  if (!first) throw new TlsError({ key: 'statusCertNeeded' });
  const minVersion = TLS_VERSIONS[minTls];
  const byName = new DomainMatcher<SecureContext>();
  const contexts = certs.map((c, i) => {
    let ctx: SecureContext;
    try {
      ctx = createSecureContext({ cert: c.cert, key: c.key, minVersion });
    } catch (err) {
      throw new TlsError({ key: 'statusTlsRejected', vars: { detail: `#${i + 1}: ${String((err as Error)?.message ?? err)}` } });
    }
    for (const n of c.names) byName.add(n, ctx);
    return ctx;
  });
  return {
    options: { cert: first.cert, key: first.key, minVersion },
    secureContext: contexts[0]!,
    context: (servername) => byName.match(servername.toLowerCase()),
  };
}
