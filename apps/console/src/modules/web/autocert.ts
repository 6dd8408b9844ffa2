/**
 * A web rule's automatic certificate as the daemon reads it (apps/daemon web.autocert.ts, repeated
 * here: the console never imports daemon code): the entry, and the names it is ordered for.
 */
import { isAcmeDomain, type WebCert, type WebRule } from '@lucky/contracts';

/** The first `auto` entry of an HTTPS rule (one serves every name); undefined otherwise. */
export function autoCertOf(rule: Pick<WebRule, 'protocol' | 'certs'>): WebCert | undefined {
  return rule.protocol === 'https' ? rule.certs.find((c) => c.source === 'auto') : undefined;
}

/**
 * The entry's own names, else the full names of the enabled sub rules; patterns and addresses
 * cannot be certified, `*.` names only through DNS-01. Sorted, each once.
 */
export function autoCertNames(rule: Pick<WebRule, 'subRules'>, cert: Pick<WebCert, 'domains' | 'challenge'>): string[] {
  const wanted = cert.domains.length ? cert.domains : rule.subRules.filter((s) => s.enable).flatMap((s) => s.domains);
  const names = wanted.map((d) => d.toLowerCase()).filter((d) => isAcmeDomain(d) && (cert.challenge === 'dns-01' || !d.startsWith('*.')));
  return [...new Set(names)].sort();
}
