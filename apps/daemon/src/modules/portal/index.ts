/**
 * Login portal: the users who may pass a web rule that requires Lucky login, as rules, and the
 * `portal` service the web rules ask (sign-in, sessions, the pass of each request). The web module
 * serves the login page on each protected rule; nothing here listens.
 */
import { Ret, portalContract } from '@lucky/contracts';
import { fail } from '../../core/envelope.js';
import { defineModule } from '../../core/module.js';
import { lifetimes } from './portal.service.js';
import { portalMigrations } from './portal.sessions.js';
import { portalRoutes } from './portal.routes.js';
import { stateOf } from './portal.state.js';

export type { PortalContext } from './portal.state.js';

export default defineModule({
  key: 'portal',
  contract: portalContract,
  migrations: portalMigrations,
  services: {
    needs: ['oidc'],
    provides: { portal: (mod) => stateOf(mod).portal },
  },
  engine: async (mod) => new (await import('./portal.engine.js')).PortalEngine(stateOf(mod).portal),
  prepare: (rule, previous, mod) => {
    const name = rule.name.toLowerCase();
    if (name !== previous?.name.toLowerCase() && mod.rules.list().some((r) => r.data.name.toLowerCase() === name)) throw fail(Ret.badRequest, 'duplicateName');
    if (!previous && !rule.password) throw fail(Ret.badRequest, 'portalPasswordRequired');
    return rule;
  },
  view: (rule, _figures, _lang, mod) => {
    const { sessions, lastLogin } = stateOf(mod);
    const mine = sessions.list(lifetimes(mod.rules.settings())).filter((s) => s.user === rule.data.name);
    return { sessions: mine.length, lastLogin: lastLogin.get(rule.data.name) ?? mine[0]?.createdAt ?? 0 };
  },
  routes: portalRoutes,
  // Switched off: signed out everywhere at once (not only refused on the next request).
  switched: (key, enable, mod) => {
    if (enable) return;
    const rule = mod.rules.get(key);
    const { sessions, portal } = stateOf(mod);
    if (rule && sessions.dropUser(rule.data.name) > 0) portal.changed();
  },
});
