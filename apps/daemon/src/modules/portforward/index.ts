/** Port forwarding: TCP/UDP relays with port ranges, limits, an IP filter, TLS and PROXY protocol. */
import { portforwardContract, Ret, type PortforwardRule, type PortforwardStats } from '@lucky/contracts';
import { fail } from '../../core/envelope.js';
import { defineModule } from '../../core/module.js';
import { listenEndpoints } from './portforward.plan.js';

/** A certificate that does not match its key is refused on save, not found later by the engine. */
async function checkTlsPair(rule: PortforwardRule): Promise<PortforwardRule> {
  if (!rule.tls.listen || rule.tls.certSource === 'store') return rule;
  const { createSecureContext } = await import('node:tls');
  try {
    createSecureContext({ cert: rule.tls.cert, key: rule.tls.key });
  } catch (err) {
    throw fail(Ret.badRequest, 'pfTlsPairInvalid', { detail: (err as Error).message });
  }
  return rule;
}

/** The figures of a rule that is not running: nothing moves; an enabled one wants its listeners. */
function idle(rule: PortforwardRule): PortforwardStats {
  const wanted = rule.enable ? listenEndpoints(rule).length : 0;
  return { tcpConnections: 0, udpSessions: 0, bytesIn: 0, bytesOut: 0, totalConnections: 0, refusedByLimit: 0, refusedByFilter: 0, listeners: 0, listenersWanted: wanted };
}

export default defineModule({
  key: 'portforward',
  contract: portforwardContract,
  services: { needs: ['certificates'] },
  engine: async (mod) =>
    new (await import('./portforward.engine.js')).PortforwardEngine({
      settings: mod.rules.settings(),
      nativeRelay: mod.env.nativeRelay,
      certificates: mod.services.certificates,
    }),
  listens: listenEndpoints,
  prepare: checkTlsPair,
  view: (rule, figures) => ({ stats: figures ?? idle(rule.data) }),
  metrics: async (rules, m) => (await import('./portforward.metrics.js')).portforwardMetrics(rules, m),
});
