/** The certificates module's series (docs/METRICS.md): per rule, its certificate's expiry and the next renewal. */
import type { AcmeRule } from '@lucky/contracts';
import type { Metrics } from '../../core/metrics.js';
import type { RuleFigures } from '../../core/module.js';
import type { CertificatesService } from '../../core/services/certificates.js';

export function acmeMetrics(rules: RuleFigures<AcmeRule, { renewAt: number | null }>[], m: Metrics, certificates: CertificatesService): void {
  const left = m.gauge('lucky_acme_certificate_expires_in_seconds', 'Seconds until the certificate a certificate rule keeps in the store expires (negative once it has).');
  const renew = m.gauge('lucky_acme_renew_timestamp_seconds', 'When a certificate rule will renew next, since the Unix epoch, in seconds.');
  const now = Date.now();
  for (const { key, rule, figures } of rules) {
    const c = certificates.get(rule.name);
    if (c) left.set({ rule: key }, Math.floor((c.notAfter - now) / 1000));
    if (figures?.renewAt) renew.set({ rule: key }, Math.floor(figures.renewAt / 1000));
  }
}
