/**
 * Dynamic DNS: tasks kept as rules, synced by the engine, with their history in lucky.db. Offers
 * the DNS providers to other modules (`dnsProviders`); sends its webhooks through `webhooks`.
 */
import { ddnsContract } from '@lucky/contracts';
import { defineModule, type ModuleContext } from '../../core/module.js';
import type { DdnsEngine } from './ddns.engine.js';
import { DdnsHistory, ddnsMigrations } from './ddns.history.js';
import { ddnsRoutes, syncTask } from './ddns.routes.js';
import { dnsProvidersService } from './ddns.service.js';
import { idleFigures, presentSync } from './ddns.view.js';

export type DdnsContext = ModuleContext<typeof ddnsContract, 'webhooks', DdnsEngine>;

export default defineModule({
  key: 'ddns',
  contract: ddnsContract,
  migrations: ddnsMigrations,
  services: {
    needs: ['webhooks'],
    provides: { dnsProviders: (mod) => dnsProvidersService(mod) },
  },
  engine: async (mod) =>
    new (await import('./ddns.engine.js')).DdnsEngine({
      history: new DdnsHistory(mod.db),
      webhooks: mod.services.webhooks,
      settings: mod.rules.settings(),
      say: mod.say,
      endpoints: mod.env.ddnsTestEndpoints,
    }),
  view: (task, figures, lang) => ({ sync: presentSync(figures ?? idleFigures(task.data), lang) }),
  // "Run now" is a forced sync; a scheduled task waits for it up to a minute.
  run: async (task, mod) => (await syncTask(task, mod, 60_000)).line,
  routes: ddnsRoutes,
  removed: (key, mod) => new DdnsHistory(mod.db).drop(key),
  metrics: async (rules, m) => (await import('./ddns.metrics.js')).ddnsMetrics(rules, m),
});
