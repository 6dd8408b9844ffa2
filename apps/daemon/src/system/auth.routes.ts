/** Login, logout and the public calls the login page makes before it has a session. */
import type { FastifyInstance } from 'fastify';
import { MODULES, Ret, coreRoutes, message } from '@lucky/contracts';
import { fail } from '../core/envelope.js';
import { verifyPassword } from '../core/password.js';
import { sayer } from '../core/logs.js';
import { addRoute } from '../core/routes.js';
import type { AppDeps } from '../deps.js';

export function authRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { config, sessions, guard } = deps;

  addRoute(app, coreRoutes.login, async ({ body, req }) => {
    const ip = req.ip;
    const wait = guard.lockedFor(ip);
    if (wait > 0) throw fail(Ret.denied, 'loginLocked', { seconds: wait });
    if (body.Account.trim() === '' || body.Password === '') throw fail(Ret.badRequest, 'accountOrPasswordEmpty');
    const cfg = config.get();
    const release = guard.admit(ip);
    if (!release) throw fail(Ret.denied, 'loginBusy');
    let passwordOk: boolean;
    try {
      // The hash is checked even for a wrong account, so timing does not tell which one was wrong.
      passwordOk = await verifyPassword(body.Password, cfg.AdminPasswordHash);
    } finally {
      release();
    }
    const accountOk = body.Account === cfg.AdminAccount;
    // Checked only after the password, so a recovery code is never used up by a wrong password.
    const twoFAOk = passwordOk && accountOk && deps.twofa.verifyLogin(body.TwoFA);
    if (!(passwordOk && accountOk && twoFAOk)) {
      const lock = guard.fail(ip);
      sayer(req.log).warn(
        { key: 'logLoginFailed', vars: { reason: { key: passwordOk && accountOk ? 'logWrong2fa' : 'logWrongPassword' } } },
        { ip, account: body.Account.slice(0, 64), lockSeconds: lock },
      );
      if (lock > 0) throw fail(Ret.denied, 'loginLocked', { seconds: lock });
      throw fail(Ret.denied, 'loginFailed');
    }
    guard.succeed(ip);
    const token = sessions.create(cfg.AdminAccount, ip, String(req.headers['user-agent'] ?? ''));
    sayer(req.log).info({ key: 'logLogin', vars: { account: cfg.AdminAccount } }, { ip });
    return { token, msg: message(req.lang, 'loginSuccess') };
  });

  addRoute(app, coreRoutes.logout, ({ req }) => {
    if (req.token) sessions.revoke(req.token);
    sayer(req.log).info({ key: 'logLogout' }, { ip: req.ip });
    return { msg: message(req.lang, 'logoutSuccess') };
  });

  addRoute(app, coreRoutes.version, () => ({ version: deps.version, twoFAEnable: config.twoFAEnabled() }));
  addRoute(app, coreRoutes.twoFAStatus, () => ({ twoFAEnable: config.twoFAEnabled() }));
  addRoute(app, coreRoutes.frontendControl, () => ({
    FrontendDisableAutoExpandLeftMenu: config.get().FrontendDisableAutoExpandLeftMenu,
  }));

  addRoute(app, coreRoutes.modulesList, () => {
    const cfg = config.get();
    return { Modules: MODULES.filter((m) => cfg.EnabledModules.includes(m.key)).map((m) => m.menuKey), u: cfg.AdminAccount };
  });
}
