/** STUN NAT traversal: publish a LAN service through the router's NAT, and say where it is. */
import { Ret, stunContract, type StunRule } from '@lucky/contracts';
import { fail } from '../../core/envelope.js';
import { defineModule, type ModuleContext } from '../../core/module.js';
import type { StunEngine } from './stun.engine.js';
import { stunRoutes } from './stun.routes.js';
import { StunStore, stunMigrations } from './stun.store.js';
import { present } from './stun.view.js';

export type StunContext = ModuleContext<typeof stunContract, 'webhooks' | 'dnsProviders', StunEngine>;

export default defineModule({
  key: 'stun',
  contract: stunContract,
  migrations: stunMigrations,
  services: {
    needs: ['webhooks', 'dnsProviders'],
    // Imported when a module first asks (Publish's router forwards): a daemon without one never loads the protocols.
    provides: {
      portMappings: async () => (await import('./stun.keeper.js')).portMappings,
      stunAddresses: async (mod: StunContext) => (await import('./stun.addresses.js')).stunAddresses(await mod.engine()),
    },
  },
  engine: async (mod) =>
    new (await import('./stun.engine.js')).StunEngine({
      store: new StunStore(mod.db),
      nativeRelay: mod.env.nativeRelay,
      notify: { webhooks: mod.services.webhooks, dnsProviders: mod.services.dnsProviders, childEnv: mod.env.childEnv ?? {} },
    }),
  // A rule on port 0 claims the port the system gives it, once bound (RuleContext.claim).
  listens: (rule: StunRule) => (rule.localPort ? [{ proto: rule.protocol, address: rule.listenHost || '0.0.0.0', port: rule.localPort }] : []),
  prepare: (rule, previous, mod) => {
    // Names are what webhooks, commands and logs tell rules apart by.
    if (rule.name !== previous?.name && mod.rules.list().some((r) => r.data.name === rule.name)) throw fail(Ret.badRequest, 'duplicateName');
    const known = new Set(mod.services.dnsProviders.tasks().map((t) => t.key));
    const missing = rule.ddnsTasks.find((k) => !known.has(k));
    if (missing) throw fail(Ret.badRequest, 'stunDdnsTaskMissing', { task: missing });
    return rule;
  },
  view: (rule, figures, lang, mod) => ({ stun: present(figures, figures ? null : new StunStore(mod.db).get(rule.key).localPort || rule.data.localPort || null, lang) }),
  run: async (rule, mod) => {
    const run = (await mod.engine()).run(rule.key);
    if (!run) throw fail(Ret.failed, 'stunNotRunning');
    await run.recheck();
    return { key: 'stunRechecked' };
  },
  routes: stunRoutes,
  metrics: async (rules, m) => (await import('./stun.metrics.js')).stunMetrics(rules, m),
  removed: (key, mod) => new StunStore(mod.db).drop(key),
});
