/**
 * Who may talk to the admin listener: first the address (non-local addresses are refused unless the
 * WAN switch allows them), then, for /api routes that are not public, a live session.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Ret, TOKEN_HEADER, message } from '@lucky/contracts';
import type { BaseConfigStore } from './baseconfig.js';
import { isLocalAddress } from './cidr.js';
import { sendError } from './envelope.js';
import type { Session, Sessions } from './sessions.js';

declare module 'fastify' {
  interface FastifyRequest {
    session?: Session;
    token?: string;
  }
}

export function tokenOf(req: FastifyRequest): string | undefined {
  const h = req.headers[TOKEN_HEADER];
  return (Array.isArray(h) ? h[0] : h) || undefined;
}

export function installAuth(app: FastifyInstance, deps: { config: BaseConfigStore; sessions: Sessions }): void {
  app.decorateRequest('session', undefined);
  app.decorateRequest('token', undefined);
  app.addHook('onRequest', async (req, reply) => {
    const cfg = deps.config.get();
    const isApi = req.url.startsWith('/api/');
    if (!cfg.AllowInternetAccess && !isLocalAddress(req.ip)) {
      req.log.warn({ ip: req.ip, url: req.url.split('?')[0] }, 'refused: not a local address');
      const msg = message(req.lang, 'wanAccessDenied', { ip: req.ip });
      if (isApi || req.routeOptions.config?.route) return sendError(req, reply, Ret.denied, msg);
      return reply.code(403).type('text/plain; charset=utf-8').send(msg);
    }
    if (!isApi || req.routeOptions.config?.route?.public) return;
    const token = tokenOf(req);
    const session = deps.sessions.check(token, cfg.AdminAccount);
    if (!session) return sendError(req, reply, Ret.sessionInvalid, message(req.lang, 'sessionInvalid'));
    req.session = session;
    req.token = token;
  });
}
