/**
 * Web services: listener rules with sub rules by domain (reverse proxy, redirect, URL jump, file
 * server, text output, close connection). Basic-auth passwords and certificate keys are secrets of
 * the contract (passwords kept as scrypt hashes); a rule's port is claimed before its engine opens
 * it, so two rules never share one.
 */
import { Ret, renderMsg, webContract, type WebRule } from '@lucky/contracts';
import { fail } from '../../core/envelope.js';
import { refuseBadCerts } from '../../core/rulecerts.js';
import { defineModule, type ModuleContext } from '../../core/module.js';
import type { WebEngine } from './web.engine.js';
import { autoOrderOf } from './web.autocert.js';
import { endpointOf } from './web.listen.js';
import { webRoutes } from './web.routes.js';

export type WebContext = ModuleContext<typeof webContract, 'certificates' | 'httpChallenges' | 'certificateOrders' | 'portal', WebEngine>;

const NO_TRAFFIC = { requests: 0, bytesIn: 0, bytesOut: 0, connections: 0, codes: {} };

/** Checks the schema cannot make: every user has a password, every certificate text goes with its key. */
function checkRule(rule: WebRule, mod: WebContext): WebRule {
  for (const users of [rule.basicAuth.users, ...rule.subRules.map((s) => s.basicAuth.users)]) {
    // An empty password was kept from the stored rule where there was one (the kit): this user is new.
    const bare = users.find((u) => u.password === '');
    if (bare) throw fail(Ret.badRequest, 'passwordRequired', { user: bare.user });
  }
  for (const a of [rule, ...rule.subRules]) if (a.forwardAuth.enable && !a.forwardAuth.url) throw fail(Ret.badRequest, 'webForwardAuthNoUrl');
  refuseBadCerts(rule.certs, mod.services.certificates);
  if (rule.protocol === 'https' && rule.httpRedirectPort === rule.port) throw fail(Ret.badRequest, 'webRedirectPortSame', { port: rule.port });
  const order = autoOrderOf(rule);
  if (order && order.names.length === 0) throw fail(Ret.badRequest, 'certAutoNoNames');
  return rule;
}

export default defineModule({
  key: 'web',
  contract: webContract,
  services: { needs: ['certificates', 'httpChallenges', 'certificateOrders', 'portal'] },
  engine: async (mod) => {
    // Basic-auth guesses count with every other login's, and a locked address is refused here too.
    (await import('./web.defender.js')).webDefender.use(mod.loginGuard);
    // Lucky login: the portal module's users and sessions, asked by every thread through this one.
    (await import('./web.portal.js')).webPortal.use(mod.services.portal);
    return new (await import('./web.engine.js')).WebEngine({
      env: mod.env,
      say: mod.say,
      certificates: mod.services.certificates,
      challenges: mod.services.httpChallenges,
      orders: () => mod.services.certificateOrders,
      settings: () => mod.rules.settings(),
    });
  },
  listens: (rule) => [endpointOf(rule), ...(rule.protocol === 'https' && rule.httpRedirectPort ? [endpointOf({ ...rule, port: rule.httpRedirectPort })] : [])],
  prepare: (rule, _previous, mod) => checkRule(rule, mod),
  // Its automatic certificate goes with it (its ACME rule and the certificate in the store).
  removed: (key, mod) => void mod.services.certificateOrders.release({ module: 'web', key }).catch(() => undefined),
  view: (_rule, figures, lang) => ({
    figures: figures?.traffic ?? NO_TRAFFIC,
    firewall: renderMsg(lang, figures?.firewall ?? { key: 'fwOff' }),
  }),
  routes: webRoutes,
  // Imported on the first scrape only: a daemon nobody scrapes never loads it.
  metrics: async (rules, m) => (await import('./web.metrics.js')).webMetrics(rules, m),
});
