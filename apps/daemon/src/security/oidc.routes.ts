/**
 * Single sign-on for the console: its settings (the provider is asked before they are saved), the
 * login page's button, and the flow: /api/oidc/login sends the browser to the provider, the
 * provider sends it back to /api/oidc/callback, which (for a member of an admin group) hands the
 * console a one-time code in the URL fragment; the console trades it for a session token with
 * /api/oidc/exchange. The token itself never appears in a URL.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Ret, ZOidcSettings, maskSecrets, message, renderMsg, restoreSecrets, safeRoutes as routes } from '@lucky/contracts';
import { errorMsg, fail, failedWith } from '../core/envelope.js';
import { sayer } from '../core/logs.js';
import { addRoute, parseOrFail } from '../core/routes.js';
import type { AppDeps } from '../deps.js';

const CODE_MS = 60_000;

/** Where the browser reached the console, as the provider must send it back there. */
function origin(req: FastifyRequest): string {
  return `${req.protocol}://${req.headers.host ?? `${req.hostname}`}`;
}

export function oidcRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { config, sessions, audit, oidc } = deps;
  /** One-time codes the callback gave out, each for one new session. */
  const codes = new Map<string, { user: string; issuer: string; until: number }>();
  const consolePath = () => (config.get().SafeURL ? `/${config.get().SafeURL}/` : '/');

  addRoute(app, routes.getOidc, () => ({ oidc: maskSecrets(ZOidcSettings, config.get().Oidc) }));
  addRoute(
    app,
    routes.putOidc,
    async ({ body, req }) => {
      const next = parseOrFail(ZOidcSettings, restoreSecrets(ZOidcSettings, body, config.get().Oidc), req.lang);
      if (next.enable) {
        if (!next.issuer || !next.clientId) throw fail(Ret.badRequest, 'oidcNeedsProvider');
        // A typo in the issuer shows now, not when someone tries to sign in.
        await oidc.configuration(next).catch((err: unknown) => {
          throw failedWith(err);
        });
      }
      config.update({ Oidc: next });
      return { msg: message(req.lang, 'oidcSaved') };
    },
    { rawBody: true },
  );
  addRoute(app, routes.oidcInfo, () => oidc.info());

  addRoute(app, routes.oidcLogin, async ({ req, reply }) => {
    try {
      // Behind a safe entry path the callback is under it too (anywhere else the daemon shows nothing).
      return reply.redirect(await oidc.start(`${origin(req)}${consolePath()}api/oidc/callback`, { for: 'console' }), 302);
    } catch (err) {
      return reply.redirect(`${consolePath()}#/login?ssoError=${encodeURIComponent(renderMsg(req.lang, errorMsg(err)))}`, 302);
    }
  });

  addRoute(app, routes.oidcCallback, async ({ req, reply }) => {
    const back = (query: string) => reply.header('Cache-Control', 'no-store').redirect(`${consolePath()}#/login?${query}`, 302);
    try {
      const { identity, extra } = await oidc.finish(new URL(req.url, origin(req)));
      if (extra.for !== 'console') throw fail(Ret.denied, 'oidcStateUnknown');
      if (!oidc.isAdmin(identity.groups)) {
        audit.add({ actor: `sso:${identity.user}`, address: req.ip, action: 'login', target: identity.issuer, result: Ret.denied });
        throw fail(Ret.denied, 'oidcNotAdmin', { user: identity.user });
      }
      const now = Date.now();
      for (const [k, c] of codes) if (c.until <= now) codes.delete(k);
      const code = randomBytes(24).toString('base64url');
      codes.set(code, { user: identity.user, issuer: identity.issuer, until: now + CODE_MS });
      return back(`sso=${code}`);
    } catch (err) {
      return back(`ssoError=${encodeURIComponent(renderMsg(req.lang, errorMsg(err)))}`);
    }
  });

  addRoute(app, routes.oidcExchange, ({ body, req }) => {
    const c = codes.get(body.code);
    codes.delete(body.code);
    if (!c || c.until <= Date.now()) throw fail(Ret.denied, 'oidcCodeUnknown');
    const token = sessions.create(config.get().AdminAccount, req.ip, String(req.headers['user-agent'] ?? ''));
    sayer(req.log).info({ key: 'logOidcLogin', vars: { user: c.user, issuer: c.issuer } }, { ip: req.ip });
    audit.add({ actor: `sso:${c.user}`, address: req.ip, action: 'login', target: c.issuer, result: 0 });
    return { token, msg: message(req.lang, 'logOidcLogin', { user: c.user, issuer: c.issuer }) };
  });
}
