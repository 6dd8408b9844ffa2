/**
 * A web rule's automatic certificate (`certs[]` of source `auto`): the names it is ordered for and
 * how the CA checks them. Light: the module's index checks them at save.
 */
import { isAcmeDomain, type WebCert, type WebRule } from '@lucky/contracts';
import type { CertificateOrder } from '../../core/services/certificateOrders.js';

/** The rule's automatic certificate entry (the first; one is enough for every name). */
export function autoCertOf(rule: Pick<WebRule, 'protocol' | 'certs'>): WebCert | undefined {
  return rule.protocol === 'https' ? rule.certs.find((c) => c.source === 'auto') : undefined;
}

/**
 * The names to order: the entry's own, else the full names of the enabled sub rules (patterns and
 * addresses cannot be certified; `*.` names only through DNS-01), sorted, each once.
 */
export function autoCertNames(rule: Pick<WebRule, 'subRules'>, cert: WebCert): string[] {
  const wanted = cert.domains.length ? cert.domains : rule.subRules.filter((s) => s.enable).flatMap((s) => s.domains);
  const names = wanted.map((d) => d.toLowerCase()).filter((d) => isAcmeDomain(d) && (cert.challenge === 'dns-01' || !d.startsWith('*.')));
  return [...new Set(names)].sort();
}

/** What the certificates module is asked to order for the rule; null when it has no automatic certificate. */
export function autoOrderOf(rule: Pick<WebRule, 'protocol' | 'certs' | 'subRules' | 'httpRedirectPort'>): CertificateOrder | null {
  const cert = autoCertOf(rule);
  if (!cert) return null;
  return {
    names: autoCertNames(rule, cert),
    challenge: cert.challenge,
    httpPort: rule.httpRedirectPort || 80,
    ...(cert.challenge === 'dns-01' ? { dnsTask: cert.dnsTask } : {}),
  };
}
