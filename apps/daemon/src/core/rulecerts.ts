/**
 * The certificates a rule carries as PEM text, checked at save (each with its key) by every module
 * with TLS listeners (web services, WebDAV…): a bad one is refused naming its place in the list.
 * Certificates given as file paths or by name from the store are read when the rule starts (they may come later).
 */
import { Ret } from '@lucky/contracts';
import { TlsError } from '../lib/tls/pem.js';
import { fail } from './envelope.js';
import type { CertificatesService } from './services/certificates.js';

export function refuseBadCerts(certs: ReadonlyArray<{ source: 'pem' | 'file' | 'store'; cert: string; key: string }>, service: CertificatesService): void {
  certs.forEach((c, i) => {
    if (c.source !== 'pem') return;
    try {
      service.check(c.cert, c.key);
    } catch (err) {
      if (err instanceof TlsError) throw fail(Ret.badRequest, 'certInRule', { n: i + 1, detail: err.msg });
      throw err;
    }
  });
}
