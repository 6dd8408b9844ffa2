/**
 * The DNS-01 record line for a name, as the DDNS providers take domain lines: `_acme-challenge.<name>`,
 * split as `sub:zone` when the chosen task names its zone that way (lib/dns/domain.ts recordLine).
 */
import { recordLine } from '../../lib/dns/domain.js';

export function challengeLine(name: string, taskDomains: readonly string[]): string {
  return recordLine(`_acme-challenge.${name}`, taskDomains);
}
