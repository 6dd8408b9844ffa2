/** Base settings: read without secrets, change with validation; everything applies without a restart. */
import type { FastifyInstance } from 'fastify';
import { Ret, ZBaseSettings, coreRoutes, formatIssues, message, type BaseConfigFile } from '@lucky/contracts';
import { AppError, fail } from '../core/envelope.js';
import { ListenError } from '../core/listener.js';
import { hashPassword } from '../core/password.js';
import { sayer } from '../core/logs.js';
import { addRoute } from '../core/routes.js';
import type { AppDeps } from '../deps.js';
import { decideAccess } from '../security/access.js';

export function baseConfigView(cfg: Readonly<BaseConfigFile>) {
  const { version: _v, AdminPasswordHash: _h, TwoFASecret, ...settings } = cfg;
  return { ...settings, TwoFAEnable: TwoFASecret !== '' };
}

export function settingsRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { config, sessions } = deps;

  addRoute(app, coreRoutes.getBaseConfig, () => ({ baseconfigure: baseConfigView(config.get()) }));

  addRoute(app, coreRoutes.putBaseConfig, async ({ body, req }) => {
    const cur = config.get();
    const { AdminPassword, TwoFAEnable: _readOnly, ...patch } = body;
    const merged = { ...baseConfigView(cur), ...patch };
    const checked = ZBaseSettings.safeParse(merged);
    if (!checked.success) throw new AppError(Ret.badRequest, null, {}, formatIssues(ZBaseSettings, merged, req.lang));
    const next = checked.data;
    // Switching internet access off from the internet would shut the caller out mid-session.
    if (decideAccess(req.ip, { ...cur, ...next }) !== 'allow') throw fail(Ret.denied, 'accessWouldLockOut', { ip: req.ip });

    const moved = next.AdminWebListenPort !== cur.AdminWebListenPort || next.AdminWebListenHost !== cur.AdminWebListenHost;
    if (moved) {
      try {
        await deps.rebind(next.AdminWebListenHost, next.AdminWebListenPort);
      } catch (err) {
        if (err instanceof ListenError) {
          if (err.code === 'EADDRINUSE') throw fail(Ret.failed, 'portInUse', { port: next.AdminWebListenPort });
          throw fail(Ret.failed, 'listenFailed', { address: err.address, detail: err.message });
        }
        throw err;
      }
    }
    const passwordHash = AdminPassword ? await hashPassword(AdminPassword) : undefined;
    try {
      config.update({ ...next, ...(passwordHash ? { AdminPasswordHash: passwordHash } : {}) });
    } catch (err) {
      if (moved) await deps.rebind(cur.AdminWebListenHost, cur.AdminWebListenPort).catch(() => undefined);
      throw err;
    }
    if (passwordHash || next.AdminAccount !== cur.AdminAccount) {
      // New credentials: every other session ends; this one follows the account.
      sessions.revokeOthers(req.token);
      if (req.token) sessions.reassign(req.token, next.AdminAccount);
    }
    const changed = Object.keys(patch).filter((k) => JSON.stringify(patch[k as keyof typeof patch]) !== JSON.stringify(cur[k as keyof typeof cur]));
    sayer(req.log).info({ key: 'logSettingsSaved', vars: { changed: [...changed, ...(passwordHash ? ['AdminPassword'] : [])].join(', ') || '-' } });
    return { msg: message(req.lang, 'saved'), baseconfigure: baseConfigView(config.get()) };
  });
}
