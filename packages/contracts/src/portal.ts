/**
 * Login portal (module `portal`): the people who may pass a web rule that requires "Lucky login".
 * Each portal user is a rule of the module (switched on and off like any rule), with a password, an
 * optional TOTP second factor and the web rules they may open. The module's settings say how long a
 * login lasts and which parent domain its cookie covers; its sessions are listed and revocable.
 * The web rules serve the login page themselves (`/.lucky/login`), so the portal needs no port.
 */
import { z } from 'zod';
import { ok } from './envelope.js';
import { msgKey } from './i18n.js';
import { route } from './route.js';
import { moduleContract, ruleView, ZRuleKey } from './rules.js';
import { secret } from './secrets.js';

export { PORTAL_COOKIE, PORTAL_FORM_COOKIE, PORTAL_PATH } from './portalnames.js';

/** A login name: what is typed on the portal's form and passed to apps in the user header. */
export const ZPortalUserName = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9._@-]{1,64}$/, { error: msgKey('portalUserNameInvalid') });

/** A base32 TOTP secret (what authenticator apps scan). */
const ZTotpSecret = z
  .string()
  .trim()
  .toUpperCase()
  .regex(/^$|^[A-Z2-7]{16,128}=*$/, { error: msgKey('portalTotpInvalid') });

export const ZPortalUser = z.object({
  /** The login name; unique among portal users (case-insensitive). */
  name: ZPortalUserName,
  enable: z.boolean().default(true),
  /** scrypt hash once stored; answers show the mask; the mask or an empty password keeps it. */
  password: secret(z.string().max(256), { hash: true }).default(''),
  /** The TOTP secret of the second factor; empty = password only. Enrol with `totpStart` and `totpCheck`. */
  totp: secret(ZTotpSecret).default(''),
  /** Web rules (keys) this user may open; empty = every rule that requires Lucky login. */
  rules: z.array(ZRuleKey).max(256).default([]),
  note: z.string().max(512).default(''),
});
export type PortalUser = z.infer<typeof ZPortalUser>;
export type PortalUserInput = z.input<typeof ZPortalUser>;

export const ZPortalUserView = ruleView(ZPortalUser, {
  /** Sessions of this user alive now. */
  sessions: z.number().int(),
  /** Unix ms of the last successful login; 0 = never. */
  lastLogin: z.number(),
});
export type PortalUserView = z.infer<typeof ZPortalUserView>;

/** A parent domain (`home.example.com`): the cookie is sent to it and every name under it. */
const ZCookieDomain = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(/^$|^([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.)+[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/, { error: msgKey('portalCookieDomainInvalid') });

export const ZPortalSettings = z.object({
  /**
   * The parent domain one login covers (`home.example.com`: `a.home.example.com` and
   * `b.home.example.com` share it). Empty: each host its own login. A request for a host outside
   * this domain gets a cookie for its own host.
   */
  cookieDomain: ZCookieDomain.default(''),
  /** A session unused this long ends. */
  idleMinutes: z.number().int().min(1).max(43_200).default(240),
  /** A session ends this long after its login, used or not. */
  absoluteHours: z.number().int().min(1).max(8_760).default(168),
});
export type PortalSettings = z.infer<typeof ZPortalSettings>;

/** A live session as the console lists it; `id` names it without being able to log in with it. */
export const ZPortalSession = z.object({
  id: z.string(),
  user: z.string(),
  address: z.string(),
  agent: z.string(),
  created: z.number(),
  lastSeen: z.number(),
  /** When it ends unless used again (idle), never later than its absolute end. */
  expires: z.number(),
});
export type PortalSession = z.infer<typeof ZPortalSession>;

const ZSessionParams = z.object({ id: z.string().regex(/^[0-9a-f]{16}$/) });

export const portalContract = moduleContract(
  'portal',
  { input: ZPortalUser, view: ZPortalUserView, configure: ZPortalSettings },
  {
    sessions: route({
      method: 'GET',
      path: '/api/portal/sessions',
      summary: 'The live portal sessions, newest first',
      module: 'portal',
      response: ok({ list: z.array(ZPortalSession) }),
    }),
    revokeSession: route({
      method: 'DELETE',
      path: '/api/portal/sessions/:id',
      summary: 'Ends one portal session (its next request asks for the login again)',
      module: 'portal',
      params: ZSessionParams,
      response: ok({ msg: z.string() }),
    }),
    totpStart: route({
      method: 'POST',
      path: '/api/portal/totp',
      summary: 'A new TOTP secret to enrol a portal user: the secret, its otpauth URL and a QR code image',
      module: 'portal',
      body: z.object({ name: ZPortalUserName }),
      response: ok({ secret: z.string(), otpauthUrl: z.string(), qrcode: z.string() }),
    }),
    totpCheck: route({
      method: 'POST',
      path: '/api/portal/totp/check',
      summary: 'Whether a code from the app matches a secret (before the user is saved with it)',
      module: 'portal',
      body: z.object({ secret: ZTotpSecret, code: z.string().trim().max(16) }),
      response: ok({ valid: z.boolean() }),
    }),
  },
);
export const portalRoutes = portalContract.routes;
