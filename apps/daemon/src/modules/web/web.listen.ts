/**
 * Where a web rule listens, from the rule alone: the address it binds, the endpoint it claims in
 * the port registry before anything opens, and what identifies its listener (a rule saved with the
 * same one keeps its socket and its connections). Light: the module's index uses it.
 */
import type { WebRule } from '@lucky/contracts';
import type { Endpoint } from '../../core/ports.js';

type Where = Pick<WebRule, 'network' | 'address' | 'port'>;

/** The address bound: the rule's own, else every address of its network (tcp6 without IPv4). */
export function listenHost(rule: Where): string {
  return rule.address || (rule.network === 'tcp6' ? '::' : '0.0.0.0');
}

/** The one TCP endpoint a rule claims; its serving threads share it (SO_REUSEPORT) within this claim. */
export function endpointOf(rule: Where): Endpoint {
  return { proto: 'tcp', address: listenHost(rule), port: rule.port, ...(rule.network === 'tcp6' ? { v6only: true } : {}) };
}

/** HTTP/2 is offered in the TLS handshake (ALPN): switching it is another listener. */
export function listenIdOf(rule: Where & Pick<WebRule, 'protocol' | 'http2'>): string {
  return `${rule.network}|${rule.address}|${rule.port}|${rule.protocol}${rule.protocol === 'https' && rule.http2 ? '|h2' : ''}`;
}

