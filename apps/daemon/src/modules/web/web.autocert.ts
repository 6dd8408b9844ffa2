/**
 * A web rule's automatic certificate (`certs[]` of source `auto`) as an order for the certificates
 * module: its names (the contracts' autoCertNames) and how the CA checks them. Light: the module's
 * index checks them at save.
 */
import { autoCertNames, autoCertOf, type WebRule } from '@lucky/contracts';
import type { CertificateOrder } from '../../core/services/certificateOrders.js';

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
