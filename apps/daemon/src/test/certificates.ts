/** The daemon's certificate store on a lucky.db of a test's own, for tests of modules that need the service. */
import { openDb } from '../core/db.js';
import type { CertificatesService } from '../core/services/certificates.js';
import { openCertificates } from '../services/certificates.js';

export function testCertificates(dir: string): { service: CertificatesService; close(): void } {
  const db = openDb(dir);
  return { service: openCertificates(db), close: () => db.close() };
}
