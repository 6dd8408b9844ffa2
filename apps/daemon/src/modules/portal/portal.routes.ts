/** The portal's own routes: live sessions and ending one, and TOTP enrolment for a user's form. */
import { Ret, message, type portalContract } from '@lucky/contracts';
import { fail } from '../../core/envelope.js';
import type { OwnHandlers } from '../../core/module.js';
import { verifyTotp } from '../../core/totp.js';
import { enrolTotp } from '../../core/totpenrol.js';
import { lifetimes } from './portal.service.js';
import { sessionIdOf } from './portal.sessions.js';
import { stateOf, type PortalContext } from './portal.state.js';

export function portalRoutes(mod: PortalContext): OwnHandlers<typeof portalContract> {
  const life = () => lifetimes(mod.rules.settings());
  return {
    sessions: async () => {
      const { sessions } = stateOf(mod);
      const l = life();
      return {
        list: sessions.list(l).map((s) => ({
          id: sessionIdOf(s.tokenHash),
          user: s.user,
          address: s.address,
          agent: s.agent,
          created: s.createdAt,
          lastSeen: s.lastSeen,
          expires: sessions.expires(s, l),
        })),
      };
    },
    revokeSession: async ({ params, req }) => {
      const { sessions, portal } = stateOf(mod);
      const s = sessions.revoke(params.id);
      if (!s) throw fail(Ret.notFound, 'portalSessionNotFound');
      portal.changed();
      return { msg: message(req.lang, 'portalSessionRevoked') };
    },
    totpStart: async ({ body }) => enrolTotp(body.name),
    totpCheck: async ({ body }) => ({ valid: body.secret !== '' && verifyTotp(body.secret, body.code) }),
  };
}
