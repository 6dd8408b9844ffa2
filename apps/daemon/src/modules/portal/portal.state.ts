/**
 * What the module keeps beside its rules, one per loaded module (two daemons in one test process
 * never mix): the sessions, the service the web rules ask, and each user's last sign-in.
 */
import type { portalContract } from '@lucky/contracts';
import type { ModuleContext } from '../../core/module.js';
import type { PortalEngine } from './portal.engine.js';
import { Portal } from './portal.service.js';
import { PortalSessions } from './portal.sessions.js';

export type PortalContext = ModuleContext<typeof portalContract, 'oidc', PortalEngine>;

export interface PortalState {
  sessions: PortalSessions;
  portal: Portal;
  /** Unix ms of each user's last sign-in since start (the view falls back to their newest session). */
  lastLogin: Map<string, number>;
}

const states = new WeakMap<object, PortalState>();

export function stateOf(mod: PortalContext): PortalState {
  let s = states.get(mod);
  if (!s) {
    const sessions = new PortalSessions(mod.db);
    const lastLogin = new Map<string, number>();
    const portal = new Portal({
      users: () => mod.rules.list(),
      settings: () => mod.rules.settings(),
      sessions,
      guard: mod.loginGuard,
      oidc: mod.services.oidc,
      say: mod.say,
      signedIn: (user) => lastLogin.set(user, Date.now()),
    });
    s = { sessions, portal, lastLogin };
    states.set(mod, s);
  }
  return s;
}
