/** The daemon's own API: login, settings, logs, status and the system calls of spec section 7. */
import { z } from 'zod';
import { ok, ZOk } from './envelope.js';
import { msgKey } from './i18n.js';
import { ZInfoFeedState, ZInfoFeedUrl } from './infofeed.js';
import { MODULE_KEYS } from './modules.js';
import { ZCidr, ZListenHost, ZPort } from './net.js';
import { route } from './route.js';
import { ZOidcSettings } from './oidc.js';
import { ZAccessPolicy, ZApiTokenScope, ZBackupSummary, ZLoginProtection, ZSafeUrl, ZUpdateInfo } from './safe.js';

/** Spec section 9: 2 Error, 3 Warn, 4 Info, 5 Debug, 6 Trace. */
export const LOG_LEVELS = { 2: 'error', 3: 'warn', 4: 'info', 5: 'debug', 6: 'trace' } as const;
export const ZLogLevel = z.number().int().min(2).max(6);

export const DEFAULT_ADMIN_PORT = 16601;
export const ZModuleKey = z.enum(MODULE_KEYS);

/** The settings a user sees and edits (everything in lucky_base.lkcf but the secrets). */
export const ZBaseSettings = z.object({
  AdminWebListenHost: ZListenHost,
  AdminWebListenPort: ZPort,
  AdminAccount: z.string().trim().min(1, { error: msgKey('cannotBeEmpty') }).max(64),
  LogLevel: ZLogLevel,
  /** How many program log lines the ring buffer keeps. */
  LogMaxSize: z.number().int().min(100).max(100000),
  FrontendDisableAutoExpandLeftMenu: z.boolean(),
  /** Allow the console from addresses that are not loopback, private, link-local or ULA. */
  AllowInternetAccess: z.boolean(),
  EnabledModules: z.array(ZModuleKey),
  /** Idle time after which a session expires. */
  SessionIdleHours: z.number().int().min(1).max(24 * 90),
  /**
   * Addresses (or ranges) that may read GET /metrics without an API token (a Prometheus on the
   * LAN); empty = a token is needed from everywhere.
   */
  MetricsAllowFrom: z.array(ZCidr).max(64),
  /** Where the daemon reads the info feed (latest version, news); '' = nowhere: nothing is fetched. */
  InfoFeedUrl: ZInfoFeedUrl,
});
export type BaseSettings = z.infer<typeof ZBaseSettings>;

/** lucky_base.lkcf as stored: the settings plus the account's secrets. */
export const ZBaseConfigFile = ZBaseSettings.extend({
  version: z.literal(1),
  /** scrypt$N$r$p$saltB64$hashB64 */
  AdminPasswordHash: z.string().regex(/^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/),
  /** Base32 TOTP secret; empty while 2FA is off. */
  TwoFASecret: z.string().regex(/^[A-Z2-7]*$/),
  /** SHA-256 of the unused one-time recovery codes. */
  TwoFARecoveryHashes: z.array(z.string().regex(/^[0-9a-f]{64}$/)).max(16).default([]),
  Access: ZAccessPolicy.default(ZAccessPolicy.parse({})),
  LoginProtection: ZLoginProtection.default(ZLoginProtection.parse({})),
  /** Single sign-on (OpenID Connect): off until an operator sets it up. */
  Oidc: ZOidcSettings.default(ZOidcSettings.parse({})),
  /** Secret path prefix; empty = none. */
  SafeURL: ZSafeUrl.default(''),
  // Here and not in ZBaseSettings: a default there would fill every partial update (ZBaseConfigUpdate).
  /** Files written before it existed fetch nothing, as a new install. */
  InfoFeedUrl: ZInfoFeedUrl.default(''),
  /** Files written before it existed let no address read metrics without a token. */
  MetricsAllowFrom: z.array(ZCidr).max(64).default([]),
});
export type BaseConfigFile = z.infer<typeof ZBaseConfigFile>;

export const ZBaseConfigView = ZBaseSettings.extend({ TwoFAEnable: z.boolean() });
/** Partial: only the fields sent change. Strict: a misspelt field is an error, not a silent no-op. */
export const ZBaseConfigUpdate = ZBaseSettings.partial()
  .extend({
    /** A new password; empty or absent keeps the current one. */
    AdminPassword: z.string().max(256).optional(),
    /** Read-only (2FA is switched in security management); accepted so a GET result can be sent back. */
    TwoFAEnable: z.boolean().optional(),
  })
  .strict();
export type BaseConfigUpdate = z.infer<typeof ZBaseConfigUpdate>;

export const ZLoginRequest = z.object({
  Account: z.string().max(256),
  Password: z.string().max(1024),
  TwoFA: z.string().max(64).optional(),
});
export type LoginRequest = z.infer<typeof ZLoginRequest>;

export const ZLogEntry = z.object({ timestamp: z.number(), log: z.string() });
export type LogEntry = z.infer<typeof ZLogEntry>;

const ZMemory = z.object({
  rss: z.number(),
  heapUsed: z.number(),
  heapTotal: z.number(),
  external: z.number(),
  arrayBuffers: z.number(),
});
export type Memory = z.infer<typeof ZMemory>;

export const ZStatus = z.object({
  time: z.number(),
  process: z.object({
    pid: z.number(),
    uptime: z.number(),
    startTime: z.number(),
    memory: ZMemory,
    /** Percent of one core over the last sampling window. */
    cpuPercent: z.number(),
    cpuUserSeconds: z.number(),
    cpuSystemSeconds: z.number(),
    /** Event-loop delay over the last sampling window, milliseconds. */
    eventLoopDelay: z.object({ mean: z.number(), p50: z.number(), p99: z.number(), max: z.number() }),
    activeHandles: z.number(),
  }),
  system: z.object({
    hostname: z.string(),
    platform: z.string(),
    arch: z.string(),
    release: z.string(),
    uptime: z.number(),
    loadavg: z.array(z.number()),
    cpus: z.number(),
    cpuModel: z.string(),
    /** Whole-machine CPU busy percent over the last sampling window. */
    cpuPercent: z.number(),
    memTotal: z.number(),
    memFree: z.number(),
  }),
  connections: z.object({
    /** Open connections to the admin console. */
    admin: z.number(),
    /** Live connections per module engine. */
    modules: z.record(z.string(), z.number()),
  }),
  sessions: z.number(),
  runtime: z.object({ node: z.string(), v8: z.string() }),
});
export type Status = z.infer<typeof ZStatus>;

export const ZAppInfo = z.object({
  version: z.string(),
  node: z.string(),
  platform: z.string(),
  arch: z.string(),
  hostname: z.string(),
  pid: z.number(),
  startTime: z.number(),
  dataDir: z.string(),
  configFile: z.string(),
  execPath: z.string(),
  /** Who restarts the process when it asks to: npm, docker, systemd, or self. */
  supervisor: z.string(),
  listen: z.string(),
});

export const ZIpv6Addr = z.object({
  address: z.string(),
  prefix: z.number(),
  scope: z.enum(['global', 'ula', 'link', 'loopback', 'site', 'other']),
  temporary: z.boolean(),
  deprecated: z.boolean(),
});
export const ZNetInterface = z.object({
  name: z.string(),
  mac: z.string(),
  internal: z.boolean(),
  ipv4: z.array(z.object({ address: z.string(), prefix: z.number() })),
  ipv6: z.array(ZIpv6Addr),
});
export type NetInterface = z.infer<typeof ZNetInterface>;

export const ZIpRegTestQuery = z.object({
  iptype: z.enum(['IPv4', 'IPv6', 'ipv4', 'ipv6']).transform((s) => (s.toLowerCase() === 'ipv4' ? 'IPv4' : 'IPv6')),
  netinterface: z.string().trim().min(1, { error: msgKey('cannotBeEmpty') }).max(64),
  /** A regular expression, `@N` for the Nth address (from 1), or empty for the first. */
  ipreg: z.string().max(512).default(''),
});

export const ZFrontendControl = z.object({ FrontendDisableAutoExpandLeftMenu: z.boolean() });

const ZRestoreAnswer = ok({ key: z.string(), summary: ZBackupSummary });

export const coreRoutes = {
  login: route({
    method: 'POST',
    path: '/api/login',
    summary: 'Log in; returns a session token',
    public: true,
    body: ZLoginRequest,
    response: ok({ token: z.string(), msg: z.string() }),
  }),
  logout: route({ method: 'PUT', path: '/api/logout', summary: 'Revoke this session', response: ZOk }),
  version: route({
    method: 'GET',
    path: '/version',
    summary: 'Version and whether 2FA is on',
    public: true,
    response: ok({ version: z.string(), twoFAEnable: z.boolean() }),
  }),
  twoFAStatus: route({
    method: 'GET',
    path: '/2FAStatus',
    summary: 'Whether login needs a 2FA code',
    public: true,
    response: ok({ twoFAEnable: z.boolean() }),
  }),
  frontendControl: route({
    method: 'GET',
    path: '/frontendcontroll',
    summary: 'Console layout flags',
    public: true,
    response: ok(ZFrontendControl.shape),
  }),
  modulesList: route({
    method: 'GET',
    path: '/api/modules/list',
    summary: 'Enabled modules (menu keys)',
    response: ok({ Modules: z.array(z.string()), u: z.string() }),
  }),
  status: route({ method: 'GET', path: '/api/status', summary: 'Process and system figures', response: ok({ data: ZStatus }) }),
  execGc: route({
    method: 'GET',
    path: '/api/execgc',
    summary: 'Run garbage collection now',
    response: ok({ msg: z.string(), before: ZMemory, after: ZMemory }),
  }),
  logs: route({
    method: 'GET',
    path: '/api/logs',
    summary: 'Program log lines newer than `pre`',
    query: z.object({ pre: z.coerce.number().int().min(0).default(0) }),
    response: ok({ starttime: z.number(), logs: z.array(ZLogEntry) }),
  }),
  getBaseConfig: route({
    method: 'GET',
    path: '/api/baseconfigure',
    summary: 'Base settings',
    response: ok({ baseconfigure: ZBaseConfigView }),
  }),
  putBaseConfig: route({
    method: 'PUT',
    path: '/api/baseconfigure',
    summary: 'Change base settings; applied at once',
    body: ZBaseConfigUpdate,
    response: ok({ msg: z.string(), baseconfigure: ZBaseConfigView }),
  }),
  rebootProgram: route({
    method: 'GET',
    path: '/api/reboot_program',
    summary: 'Restart the daemon gracefully',
    response: ok({ msg: z.string() }),
  }),
  netInterfaces: route({
    method: 'GET',
    path: '/api/netinterfaces',
    summary: 'Network interfaces and their addresses',
    response: ok({ interfaces: z.array(ZNetInterface) }),
  }),
  ipRegTest: route({
    method: 'GET',
    path: '/api/ipregtest',
    summary: "Which of an interface's addresses a rule picks",
    query: ZIpRegTestQuery,
    response: ok({ ip: z.string(), matches: z.array(z.string()), candidates: z.array(z.string()) }),
  }),
  info: route({ method: 'GET', path: '/api/info', summary: 'About this program', response: ok({ info: ZAppInfo }) }),
  openapi: route({
    method: 'GET',
    path: '/api/openapi.json',
    summary: 'This document',
    raw: 'download',
    response: z.record(z.string(), z.unknown()),
  }),
  twoFAPassword: route({
    method: 'GET',
    path: '/api/twofapassword',
    summary: 'Start 2FA enrolment: a new secret, its otpauth URL and QR code (confirm with /api/safe/twofa/enable)',
    response: ok({ secret: z.string(), otpauthUrl: z.string(), qrcode: z.string() }),
  }),
  configureDownload: route({
    method: 'GET',
    path: '/api/configure',
    summary: 'Download a backup of the base settings and all module data (secrets only with secrets=1)',
    raw: 'download',
    query: z.object({ secrets: z.enum(['0', '1']).default('0') }),
    response: z.record(z.string(), z.unknown()),
  }),
  configureUpload: route({
    method: 'POST',
    path: '/api/configure',
    summary: 'Upload a backup; answers a summary and a key to confirm the restore with',
    raw: 'upload',
    response: ZRestoreAnswer,
  }),
  restoreConfirm: route({
    method: 'GET',
    path: '/api/restoreconfigureconfirm',
    summary: 'Apply a pending restore',
    query: z.object({ key: z.string().trim().min(1, { error: msgKey('cannotBeEmpty') }).max(128) }),
    response: ok({ msg: z.string() }),
  }),
  luckyService: route({
    method: 'PUT',
    path: '/api/lucky/service',
    summary: 'Install, uninstall or query the systemd service',
    query: z.object({ option: z.enum(['install', 'uninstall', 'status']) }),
    response: ok({ msg: z.string(), status: z.string() }),
  }),
  updateUpload: route({
    method: 'POST',
    path: '/api/update',
    summary: 'Upload a release archive; it is verified and staged',
    raw: 'upload',
    response: ok({ info: ZUpdateInfo }),
  }),
  updateConfirm: route({
    method: 'PUT',
    path: '/api/update/comfire',
    summary: 'Apply the staged update and restart',
    body: z.object({}).passthrough().optional(),
    response: ok({ msg: z.string() }),
  }),
  updateCancel: route({ method: 'GET', path: '/api/update/cancel', summary: 'Discard the staged update', response: ok({ msg: z.string() }) }),
  fileBase64: route({
    method: 'POST',
    path: '/api/getfilebase64',
    summary: 'Read an uploaded file back as base64 (certificates, keys)',
    raw: 'upload',
    response: ok({ name: z.string(), size: z.number(), data: z.string() }),
  }),
  v2l: route({ method: 'POST', path: '/api/v2l', body: z.unknown(), summary: 'Not supported: answers so plainly', response: ZOk }),
  infoFeed: route({
    method: 'GET',
    path: '/api/infofeed',
    summary: "The info feed set in Settings, as the daemon read it (at most hourly; refresh=1 reads it now); state off and nothing fetched when none is set",
    query: z.object({ refresh: z.enum(['0', '1']).default('0') }),
    response: ok({ feed: ZInfoFeedState }),
  }),
  whoami: route({
    method: 'GET',
    path: '/api/whoami',
    summary: 'Who is calling: the account, whether through a session or an API token (its name), and what it may do (read or full)',
    response: ok({ account: z.string(), via: z.enum(['session', 'token']), name: z.string(), scope: ZApiTokenScope }),
  }),
} as const;
