/**
 * Storage management: storages (local directories) as rules, storage users and anonymous access as
 * settings, and the `storages` service that WebDAV, FTP and the file browser use for logins,
 * permissions and the one path check. Nothing runs for a storage: its engine only watches that the
 * directory is there.
 */
import { Ret, storageContract } from '@lucky/contracts';
import { fail } from '../../core/envelope.js';
import { defineModule } from '../../core/module.js';
import { directoryProblem } from './storage.dir.js';
import { storageRoutes } from './storage.routes.js';
import { storagesService } from './storage.service.js';
import { stateOf } from './storage.state.js';
import { fsSpace } from './storage.usage.js';

export type { StorageContext } from './storage.state.js';

export default defineModule({
  key: 'storage',
  contract: storageContract,
  services: {
    provides: { storages: (mod) => storagesService(mod) },
  },
  engine: async (mod) => new (await import('./storage.engine.js')).StorageEngine(stateOf(mod)),
  // A storage must point at a directory that is there now; a typo is refused, nothing saved.
  prepare: async (rule) => {
    // A remote one is checked by its engine (a server down now may be up in a minute).
    if (rule.kind !== 'local') return rule;
    const problem = await directoryProblem(rule.path);
    if (problem) throw fail(Ret.badRequest, problem.key, problem.vars);
    return rule;
  },
  view: async (rule, _figures, _lang, mod) => {
    const state = stateOf(mod);
    if (rule.data.kind !== 'local') return { usage: { fsTotal: 0, fsFree: 0, used: null, usedAt: null, usedBy: state.usedBy(rule.key) } };
    const walked = (await directoryProblem(rule.data.path)) ? null : state.usage.peek(rule.data.path);
    return {
      usage: {
        ...(await fsSpace(rule.data.path)),
        used: walked?.used ?? null,
        usedAt: walked?.at ?? null,
        usedBy: state.usedBy(rule.key),
      },
    };
  },
  // Deleting a storage pulls it from under the services that serve it: ask first, naming them.
  guardRemove: (rule, mod) => {
    const services = stateOf(mod).usedBy(rule.key);
    return services.length > 0 ? { key: 'storageInUse', vars: { name: rule.data.name, services: services.join(', ') } } : null;
  },
  routes: storageRoutes,
  metrics: async (rules, m, mod) => (await import('./storage.metrics.js')).storageMetrics(rules, m, mod),
});
