/** Security management: 2FA, access policy, login protection, safe entry path, API tokens, sessions, audit. */
import type { FastifyInstance } from 'fastify';
import { Ret, coreRoutes, message, safeRoutes as routes } from '@lucky/contracts';
import { fail } from '../core/envelope.js';
import { verifyPassword } from '../core/password.js';
import { sayer } from '../core/logs.js';
import { addRoute } from '../core/routes.js';
import { sessionId } from '../core/sessions.js';
import type { AppDeps } from '../deps.js';
import { decideAccess } from './access.js';

export function safeRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { config, sessions, apiTokens, guard, twofa, audit } = deps;

  const requirePassword = async (password: string) => {
    if (!(await verifyPassword(password, config.get().AdminPasswordHash))) throw fail(Ret.denied, 'passwordWrong');
  };

  addRoute(app, routes.overview, () => {
    const cfg = config.get();
    return {
      twoFAEnable: cfg.TwoFASecret !== '',
      recoveryCodesLeft: cfg.TwoFARecoveryHashes.length,
      safeURL: cfg.SafeURL,
      access: cfg.Access,
      allowInternetAccess: cfg.AllowInternetAccess,
      loginProtection: cfg.LoginProtection,
    };
  });

  addRoute(app, coreRoutes.twoFAPassword, async ({ req }) => {
    if (config.twoFAEnabled()) throw fail(Ret.failed, 'twoFAAlreadyOn');
    return twofa.start(req.session!.tokenHash, config.get().AdminAccount);
  });

  addRoute(app, routes.twoFAEnable, ({ body, req }) => {
    if (config.twoFAEnabled()) throw fail(Ret.failed, 'twoFAAlreadyOn');
    const r = twofa.confirm(req.session!.tokenHash, body.code);
    if (r === 'noPending') throw fail(Ret.failed, 'twoFANotPending');
    if (r === 'wrongCode') throw fail(Ret.denied, 'twoFACodeWrong');
    sayer(req.log).warn({ key: 'log2faOn' }, { ip: req.ip });
    return { recoveryCodes: r };
  });

  addRoute(app, routes.twoFADisable, async ({ body, req }) => {
    if (!config.twoFAEnabled()) throw fail(Ret.failed, 'twoFANotOn');
    await requirePassword(body.password);
    twofa.disable();
    sayer(req.log).warn({ key: 'log2faOff' }, { ip: req.ip });
    return {};
  });

  addRoute(app, routes.twoFARecovery, async ({ body }) => {
    if (!config.twoFAEnabled()) throw fail(Ret.failed, 'twoFANotOn');
    await requirePassword(body.password);
    return { recoveryCodes: twofa.regenerateRecovery() };
  });

  addRoute(app, routes.getAccess, () => ({ access: config.get().Access }));
  addRoute(app, routes.putAccess, ({ body, req }) => {
    const next = { ...config.get(), Access: body };
    if (decideAccess(req.ip, next) !== 'allow') throw fail(Ret.denied, 'accessWouldLockOut', { ip: req.ip });
    config.update({ Access: body });
    return { msg: message(req.lang, 'saved') };
  });

  addRoute(app, routes.getLoginProtection, () => ({ loginProtection: config.get().LoginProtection }));
  addRoute(app, routes.putLoginProtection, ({ body, req }) => {
    config.update({ LoginProtection: body });
    return { msg: message(req.lang, 'saved') };
  });

  addRoute(app, routes.lockouts, () => ({ list: guard.list() }));
  addRoute(app, routes.liftLockout, ({ params, req }) => {
    if (!guard.lift(params.address)) throw fail(Ret.notFound, 'lockNotFound', { address: params.address });
    sayer(req.log).info({ key: 'logLockLifted', vars: { address: params.address } }, { ip: req.ip });
    return {};
  });
  addRoute(app, routes.clearLockouts, ({ req }) => {
    guard.clear();
    sayer(req.log).info({ key: 'logLocksCleared' }, { ip: req.ip });
    return {};
  });

  addRoute(app, routes.getSafeUrl, () => ({ safeURL: config.get().SafeURL }));
  addRoute(app, routes.putSafeUrl, ({ body, req }) => {
    config.update({ SafeURL: body.safeURL });
    sayer(req.log).warn({ key: 'logSafeUrlChanged' }, { ip: req.ip, set: body.safeURL !== '' });
    return { safeURL: body.safeURL };
  });

  addRoute(app, routes.tokens, () => ({ list: apiTokens.list() }));
  addRoute(app, routes.createToken, ({ body, req }) => {
    const created = apiTokens.create(body.name, body.scope, config.get().AdminAccount);
    sayer(req.log).info({ key: 'logTokenCreated', vars: { name: body.name, scope: body.scope } });
    return created;
  });
  addRoute(app, routes.revokeToken, ({ params }) => {
    if (!apiTokens.revoke(params.id)) throw fail(Ret.notFound, 'tokenNotFound');
    return {};
  });

  addRoute(app, routes.sessions, ({ req }) => ({
    list: sessions.list().map((s) => ({
      id: sessionId(s),
      address: s.address,
      agent: s.agent,
      created: s.createdAt,
      lastSeen: s.lastSeen,
      expires: s.expiresAt,
      current: s.tokenHash === req.session?.tokenHash,
    })),
  }));
  addRoute(app, routes.revokeSession, ({ params }) => {
    if (!sessions.revokeById(params.id)) throw fail(Ret.notFound, 'sessionNotFound');
    return {};
  });
  addRoute(app, routes.revokeOtherSessions, ({ req }) => ({ revoked: sessions.revokeOthers(req.token) }));

  addRoute(app, routes.audit, ({ query }) => ({ list: audit.list(query.limit, query.before) }));
}
