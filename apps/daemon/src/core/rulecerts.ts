/**
 * The certificates a rule carries as PEM text, checked at save (each with its key) by every module
 * with TLS listeners (web services, WebDAV…): a bad one is refused naming its place in the list.
 * Certificates given as file paths or by name from the store are read when the rule starts (they may come later).
 */
import { Ret } from '@lucky/contracts';
import type { MinTls, ServerTls } from '../lib/tls/contexts.js';
import { TlsError, type CertSource } from '../lib/tls/pem.js';
import { RuleWaits, type RuleContext } from './engine.js';
import { fail } from './envelope.js';
import type { CertificatesService } from './services/certificates.js';

export function refuseBadCerts(certs: ReadonlyArray<{ source: 'pem' | 'file' | 'store' | 'auto'; cert: string; key: string }>, service: CertificatesService): void {
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

/**
 * Keeps a running TLS server on the current version of the store certificates its rule names (a
 * renewal by ACME, a new upload): `apply` gets the rule's certificates read again, and the server
 * swaps them in without dropping connections. A version that no longer loads is the rule's problem
 * until the next change. Returns the unsubscribe (nothing to follow when the rule names none).
 */
export function followStoreCerts(
  service: CertificatesService,
  certs: readonly CertSource[],
  minTls: MinTls,
  ctx: Pick<RuleContext<unknown>, 'note' | 'report'>,
  apply: (next: ServerTls) => void,
): () => void {
  const named = new Set(certs.filter((c) => c.source === 'store').map((c) => c.cert));
  if (named.size === 0) return () => {};
  return service.onChange((name) => {
    if (!named.has(name)) return;
    service.serverTls(certs, minTls).then(
      (next) => {
        apply(next);
        ctx.note({ key: 'certSwapped', vars: { name } });
        ctx.report(null);
      },
      (err: unknown) => ctx.report([err instanceof TlsError ? err.msg : { key: 'statusApplyFailed', vars: { detail: String((err as Error)?.message ?? err) } }]),
    );
  });
}

/**
 * Throws RuleWaits while a certificate of the store that the rule names is not there yet (ACME is
 * ordering it, or its files are being read): the rule shows `waiting`, not an error, and starts the
 * moment the store has every one of them, from the store's own change event.
 */
export function awaitStoreCerts(service: CertificatesService, certs: readonly CertSource[]): void {
  const named = [...new Set(certs.filter((c) => c.source === 'store').map((c) => c.cert))];
  const missing = named.filter((name) => service.get(name) === undefined);
  if (missing.length === 0) return;
  throw new RuleWaits({ key: 'certWaiting', vars: { name: missing.join(', ') } }, (ready) => {
    const all = () => missing.every((name) => service.get(name) !== undefined);
    const off = service.onChange((name, now) => {
      if (now && missing.includes(name) && all()) ready();
    });
    // Stored while the start was failing: no event is coming for it any more.
    if (all()) ready();
    return off;
  });
}
