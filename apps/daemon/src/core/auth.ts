/**
 * Who may talk to the admin listener: first the address (the access policy it is given, from
 * security/), then, for /api routes that are not public, a live session or an API token.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Ret, TOKEN_HEADER, message, type MessageKey } from '@lucky/contracts';
import type { ApiToken, BaseConfigFile } from '@lucky/contracts';
import type { BaseConfigStore } from './baseconfig.js';
import { sendError } from './envelope.js';
import type { LoginGuard } from './loginguard.js';
import { sayer } from './logs.js';
import type { Session, Sessions } from './sessions.js';

declare module 'fastify' {
  interface FastifyRequest {
    session?: Session;
    token?: string;
  }
  interface FastifyContextConfig {
    /** Answered before any access check (the safe-entry "nothing here" page). */
    bypassAuth?: boolean;
  }
}

export function tokenOf(req: FastifyRequest): string | undefined {
  const h = req.headers[TOKEN_HEADER];
  return (Array.isArray(h) ? h[0] : h) || undefined;
}

function bearerOf(req: FastifyRequest): string | undefined {
  const h = req.headers.authorization;
  return h?.startsWith('Bearer ') ? h.slice(7).trim() : undefined;
}

/** Paths an API token may never use: security management, and anything handing out secrets. */
const SESSION_ONLY = /^\/api\/(safe\/|twofapassword|configure|restoreconfigureconfirm|update|lucky\/service|baseconfigure$)/;
/** GET routes that change something: a read-only token may not use them either. */
const CHANGING_GETS = /^\/api\/(reboot_program|execgc)$/;

/** A backup without secrets hands out none: a full-scope token may download it (the multi-device admin does). */
function backupWithoutSecrets(req: FastifyRequest, path: string): boolean {
  return req.method === 'GET' && path === '/api/configure' && new URLSearchParams(req.url.split('?')[1] ?? '').get('secrets') !== '1';
}

/** Who made a request, as the audit log names them: the session's account, `token:<name>`, or `-`. */
export function actorOf(req: FastifyRequest): string {
  return req.session?.account ?? (req.apiToken ? `token:${req.apiToken.name}` : '-');
}

const VERDICT_MESSAGE: Record<string, MessageKey> = {
  blacklisted: 'accessDenied',
  notWhitelisted: 'accessDenied',
  notLocal: 'wanAccessDenied',
};

export function installAuth(
  app: FastifyInstance,
  deps: {
    config: BaseConfigStore;
    sessions: Sessions;
    apiTokens: { check(token: string, account: string): ApiToken | undefined };
    guard: LoginGuard;
    /** The address policy: 'allow', or why not. */
    decideAccess(ip: string, cfg: Readonly<BaseConfigFile>): 'allow' | 'blacklisted' | 'notWhitelisted' | 'notLocal';
  },
): void {
  app.decorateRequest('session', undefined);
  app.decorateRequest('token', undefined);
  app.decorateRequest('apiToken', undefined);
  app.addHook('onRequest', async (req, reply) => {
    if (req.routeOptions.config?.bypassAuth) return;
    const cfg = deps.config.get();
    const isApi = req.url.startsWith('/api/');
    const verdict = deps.decideAccess(req.ip, cfg);
    if (verdict !== 'allow') {
      sayer(req.log).warn({ key: 'logAddressRefused', vars: { ip: req.ip } }, { url: req.url.split('?')[0], verdict });
      const msg = message(req.lang, VERDICT_MESSAGE[verdict]!, { ip: req.ip });
      if (isApi || req.routeOptions.config?.route) return sendError(req, reply, Ret.denied, msg);
      return reply.code(403).type('text/plain; charset=utf-8').send(msg);
    }
    if (!isApi || req.routeOptions.config?.route?.public) return;

    const token = tokenOf(req);
    if (token) {
      const session = deps.sessions.check(token, cfg.AdminAccount);
      if (session) {
        req.session = session;
        req.token = token;
        return;
      }
      return sendError(req, reply, Ret.sessionInvalid, message(req.lang, 'sessionInvalid'));
    }

    const bearer = bearerOf(req);
    if (bearer) {
      const wait = deps.guard.lockedFor(req.ip);
      if (wait > 0) return sendError(req, reply, Ret.denied, message(req.lang, 'loginLocked', { seconds: wait }));
      const info = deps.apiTokens.check(bearer, cfg.AdminAccount);
      if (!info) {
        const lock = deps.guard.fail(req.ip);
        sayer(req.log).warn({ key: 'logTokenRefused', vars: { ip: req.ip } }, { lockSeconds: lock });
        return sendError(req, reply, Ret.sessionInvalid, message(req.lang, 'sessionInvalid'));
      }
      const path = req.url.split('?')[0]!;
      const sessionOnly = SESSION_ONLY.test(path) && !(info.scope === 'full' && backupWithoutSecrets(req, path));
      if (sessionOnly || (info.scope === 'read' && (req.method !== 'GET' || CHANGING_GETS.test(path)))) {
        return sendError(req, reply, Ret.denied, message(req.lang, 'tokenReadOnly'));
      }
      req.apiToken = { id: info.id, name: info.name, scope: info.scope };
      return;
    }
    return sendError(req, reply, Ret.sessionInvalid, message(req.lang, 'sessionInvalid'));
  });
}
