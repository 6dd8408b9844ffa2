/**
 * Security management (/safe) and the system functions of spec section 7: 2FA, who may reach the
 * console, login protection, the safe entry path, API tokens, sessions, the audit log, backups,
 * updates and the system service.
 */
import { z } from 'zod';
import { ok, ZOk } from './envelope.js';
import { msgKey } from './i18n.js';
import { ZCidr } from './net.js';
import { route } from './route.js';
import { ZOidcInfo, ZOidcSettings } from './oidc.js';

export const ZAccessEntry = z.object({
  cidr: ZCidr,
  note: z.string().max(128).default(''),
  /** Epoch ms after which the entry no longer applies; 0 = never. */
  expires: z.number().int().min(0).default(0),
});
export type AccessEntry = z.infer<typeof ZAccessEntry>;

export const ZAccessPolicy = z.object({
  /** Always refused (loopback excepted, so the machine itself can never be locked out). */
  blacklist: z.array(ZAccessEntry).max(1000).default([]),
  /** Always allowed, even while internet access is off. */
  whitelist: z.array(ZAccessEntry).max(1000).default([]),
  /** When on, only loopback and the whitelist may reach the console. */
  whitelistOnly: z.boolean().default(false),
  /** Ranges that count as local besides loopback, RFC 1918, link-local, CGNAT and ULA. */
  localNetworks: z.array(ZCidr).max(100).default([]),
});
export type AccessPolicy = z.infer<typeof ZAccessPolicy>;

export const ZLoginProtection = z.object({
  /** Failures an address may make before it is locked. */
  freeFailures: z.number().int().min(1).max(100).default(5),
  /** The first lock; each further failure doubles it up to maxLockSeconds. */
  baseLockSeconds: z.number().int().min(1).max(86400).default(30),
  maxLockSeconds: z.number().int().min(1).max(7 * 86400).default(3600),
  /** Failures from all addresses together per minute before every login waits a minute. */
  globalFailuresPerMinute: z.number().int().min(1).max(10000).default(30),
  /** Addresses and networks never locked (the operator's own LAN, a monitoring host). */
  allowList: z.array(ZCidr).max(64).default([]),
});
export type LoginProtection = z.infer<typeof ZLoginProtection>;

/** Letters, digits, - and _; empty = no safe entry path. */
export const ZSafeUrl = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_-]{0,64}$/, { error: msgKey('invalidSafeUrl') });

export const ZApiTokenScope = z.enum(['read', 'full']);
export const ZApiToken = z.object({
  id: z.string(),
  name: z.string(),
  scope: ZApiTokenScope,
  created: z.number(),
  lastUsed: z.number(),
  /** The first characters, to recognise a token without showing it. */
  prefix: z.string(),
});
export type ApiToken = z.infer<typeof ZApiToken>;

export const ZSessionInfo = z.object({
  id: z.string(),
  address: z.string(),
  agent: z.string(),
  created: z.number(),
  lastSeen: z.number(),
  expires: z.number(),
  current: z.boolean(),
});

export const ZAuditEntry = z.object({
  id: z.number(),
  time: z.number(),
  actor: z.string(),
  address: z.string(),
  action: z.string(),
  target: z.string(),
  result: z.number(),
});

export const ZLockout = z.object({ address: z.string(), failures: z.number(), lockedUntil: z.number() });

const ZKeyParam = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/) });

export const ZBackupSummary = z.object({
  base: z.array(z.string()),
  modules: z.record(z.string(), z.object({ add: z.number(), update: z.number(), remove: z.number(), settings: z.boolean() })),
  /** Rows of the stores kept beside the rules (`certificates`, `acmeAccounts`) the restore writes: only a backup with secrets has them. */
  stores: z.record(z.string(), z.number()),
  secretsIncluded: z.boolean(),
  created: z.number(),
  version: z.string(),
});
export type BackupSummary = z.infer<typeof ZBackupSummary>;

const ZPemText = z.string().max(256 * 1024);
/**
 * What a backup with secrets carries beside the rules (a backup without secrets leaves them out:
 * they are private keys): the certificate store, so a restored install serves the same certificates
 * without ordering new ones, and the ACME account keys the certificates module made, so it renews
 * them with the same accounts.
 */
export const BACKUP_STORE_ROWS = {
  certificates: z.object({ name: z.string().max(128), cert: ZPemText, key: ZPemText, created: z.number(), updated: z.number() }),
  acmeAccounts: z.object({ directory: z.string().max(2048), eabKid: z.string().max(256), key: ZPemText, url: z.string().max(2048), created: z.number() }),
} as const;
export type BackupStoreName = keyof typeof BACKUP_STORE_ROWS;
export type BackupStoreRow<N extends BackupStoreName> = z.infer<(typeof BACKUP_STORE_ROWS)[N]>;

export const ZUpdateInfo = z.object({ version: z.string(), current: z.string(), files: z.number(), size: z.number() });

export const safeRoutes = {
  overview: route({
    method: 'GET',
    path: '/api/safe/overview',
    summary: 'Security state at a glance',
    response: ok({
      twoFAEnable: z.boolean(),
      recoveryCodesLeft: z.number(),
      safeURL: z.string(),
      access: ZAccessPolicy,
      allowInternetAccess: z.boolean(),
      loginProtection: ZLoginProtection,
    }),
  }),
  // 2FA: /api/twofapassword (spec section 7) starts enrolment and returns the secret once.
  twoFAEnable: route({
    method: 'POST',
    path: '/api/safe/twofa/enable',
    summary: 'Switch 2FA on with a code from the enrolled app; returns the recovery codes once',
    body: z.object({ code: z.string().trim().regex(/^\d{6}$/, { error: msgKey('invalidTotp') }) }),
    response: ok({ recoveryCodes: z.array(z.string()) }),
  }),
  twoFADisable: route({
    method: 'POST',
    path: '/api/safe/twofa/disable',
    summary: 'Switch 2FA off (needs the admin password)',
    body: z.object({ password: z.string().min(1, { error: msgKey('cannotBeEmpty') }).max(1024) }),
    response: ZOk,
  }),
  twoFARecovery: route({
    method: 'POST',
    path: '/api/safe/twofa/recovery',
    summary: 'Replace the recovery codes (needs the admin password)',
    body: z.object({ password: z.string().min(1, { error: msgKey('cannotBeEmpty') }).max(1024) }),
    response: ok({ recoveryCodes: z.array(z.string()) }),
  }),
  getAccess: route({ method: 'GET', path: '/api/safe/access', summary: 'Who may reach the console', response: ok({ access: ZAccessPolicy }) }),
  putAccess: route({
    method: 'PUT',
    path: '/api/safe/access',
    summary: 'Change who may reach the console (refused if it would shut out the caller)',
    body: ZAccessPolicy,
    response: ZOk,
  }),
  getLoginProtection: route({
    method: 'GET',
    path: '/api/safe/loginprotection',
    summary: 'Login lockout settings',
    response: ok({ loginProtection: ZLoginProtection }),
  }),
  putLoginProtection: route({
    method: 'PUT',
    path: '/api/safe/loginprotection',
    summary: 'Change login lockout settings',
    body: ZLoginProtection,
    response: ZOk,
  }),
  getOidc: route({ method: 'GET', path: '/api/safe/oidc', summary: 'Single sign-on (OpenID Connect) settings', response: ok({ oidc: ZOidcSettings }) }),
  putOidc: route({ method: 'PUT', path: '/api/safe/oidc', summary: 'Change the single sign-on settings (the provider is asked first)', body: ZOidcSettings, response: ok({ msg: z.string() }) }),
  oidcInfo: route({ method: 'GET', path: '/api/oidc', summary: 'Whether the login page offers single sign-on, and its label', public: true, response: ok(ZOidcInfo.shape) }),
  oidcLogin: route({
    method: 'GET',
    path: '/api/oidc/login',
    summary: 'Sends the browser to the provider to sign in to the console (a redirect, not JSON)',
    public: true,
    response: ZOk,
  }),
  oidcCallback: route({
    method: 'GET',
    path: '/api/oidc/callback',
    summary: 'Where the provider sends the browser back; redirects to the console with a one-time code or the reason of a refusal',
    public: true,
    response: ZOk,
  }),
  oidcExchange: route({
    method: 'POST',
    path: '/api/oidc/exchange',
    summary: 'Trades the one-time code the sign-in callback gave the console for a session token',
    public: true,
    body: z.object({ code: z.string().max(128) }),
    response: ok({ token: z.string(), msg: z.string() }),
  }),
  lockouts: route({ method: 'GET', path: '/api/safe/lockouts', summary: 'Addresses with failed logins', response: ok({ list: z.array(ZLockout) }) }),
  clearLockouts: route({ method: 'DELETE', path: '/api/safe/lockouts', summary: 'Forget failed logins and lift every lock', response: ZOk }),
  liftLockout: route({
    method: 'DELETE',
    path: '/api/safe/lockouts/:address',
    summary: "Lift one address's lock and forget its failures (`*`: the lock of every login)",
    params: z.object({ address: z.string().trim().min(1).max(64) }),
    response: ZOk,
  }),
  getSafeUrl: route({ method: 'GET', path: '/api/safe/safeurl', summary: 'The safe entry path', response: ok({ safeURL: z.string() }) }),
  putSafeUrl: route({
    method: 'PUT',
    path: '/api/safe/safeurl',
    summary: 'Set the safe entry path; the console then answers only under /<path>/',
    body: z.object({ safeURL: ZSafeUrl }),
    response: ok({ safeURL: z.string() }),
  }),
  tokens: route({ method: 'GET', path: '/api/safe/tokens', summary: 'API tokens', response: ok({ list: z.array(ZApiToken) }) }),
  createToken: route({
    method: 'POST',
    path: '/api/safe/tokens',
    summary: 'Create an API token; the token is shown only in this answer',
    body: z.object({ name: z.string().trim().min(1, { error: msgKey('cannotBeEmpty') }).max(64), scope: ZApiTokenScope }),
    response: ok({ token: z.string(), info: ZApiToken }),
  }),
  revokeToken: route({ method: 'DELETE', path: '/api/safe/tokens/:id', summary: 'Revoke an API token', params: ZKeyParam, response: ZOk }),
  sessions: route({ method: 'GET', path: '/api/safe/sessions', summary: 'Active console sessions', response: ok({ list: z.array(ZSessionInfo) }) }),
  revokeSession: route({ method: 'DELETE', path: '/api/safe/sessions/:id', summary: 'End one session', params: ZKeyParam, response: ZOk }),
  revokeOtherSessions: route({ method: 'DELETE', path: '/api/safe/sessions', summary: 'End every session but this one', response: ok({ revoked: z.number() }) }),
  audit: route({
    method: 'GET',
    path: '/api/safe/audit',
    summary: 'Who changed what, newest first',
    query: z.object({ limit: z.coerce.number().int().min(1).max(1000).default(200), before: z.coerce.number().int().min(0).default(0) }),
    response: ok({ list: z.array(ZAuditEntry) }),
  }),
};
