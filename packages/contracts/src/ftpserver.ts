/**
 * FTP server (module `ftpserver`): one listener per rule serving the storages of storage management
 * to its storage users, with passive ports, explicit (AUTH TLS) or implicit FTPS, and the one
 * permission and path check of the `storages` service.
 */
import { z } from 'zod';
import { msgKey } from './i18n.js';
import { isIP, isIPv4, ZPort } from './net.js';
import { moduleContract, ruleView, ZRuleKey } from './rules.js';
import { checkMounts, ZStorageMounts } from './storage.js';
import { ZTlsCert } from './web.js';

/** The most passive ports one rule may claim. */
export const FTP_MAX_PASSIVE_PORTS = 2000;

export const ZFtpTlsMode = z.enum(['off', 'explicit', 'implicit']);
export type FtpTlsMode = z.infer<typeof ZFtpTlsMode>;

/** What PASV announces: the address the client reached (auto), a fixed IPv4 address, or a DDNS task's current IPv4 address. */
export const ZFtpPasvMode = z.enum(['auto', 'fixed', 'ddns']);
export type FtpPasvMode = z.infer<typeof ZFtpPasvMode>;

export const ZFtpRuleFields = z.object({
  name: z.string().trim().min(1, { error: msgKey('cannotBeEmpty') }).max(64),
  enable: z.boolean().default(true),
  /** Empty = every address, IPv4 and IPv6. */
  address: z.string().trim().refine((s) => s === '' || isIP(s), { error: msgKey('invalidIp') }).default(''),
  port: ZPort.default(21),
  pasvMin: ZPort.default(50000),
  pasvMax: ZPort.default(50100),
  pasvMode: ZFtpPasvMode.default('auto'),
  /** The IPv4 address PASV announces in mode `fixed`. */
  pasvAddress: z.string().trim().max(64).default(''),
  /** The DDNS task (its key) whose IPv4 address PASV announces in mode `ddns`. */
  pasvDdnsTask: z.string().max(64).default(''),
  tls: ZFtpTlsMode.default('off'),
  /** Explicit FTPS: refuse USER/PASS and data transfers until the client switched to TLS. */
  requireTls: z.boolean().default(false),
  certs: z.array(ZTlsCert).max(16).default([]),
  /** The anonymous user (`anonymous`/`ftp`), read-only, when storage management allows it too. */
  anonymous: z.boolean().default(false),
  mounts: ZStorageMounts,
  maxConnections: z.number().int().min(1).max(10_000).default(50),
  maxPerUser: z.number().int().min(1).max(10_000).default(8),
  /** Seconds without a command (and no transfer running) before the session is closed. */
  idleTimeout: z.number().int().min(10).max(86_400).default(300),
  note: z.string().max(512).default(''),
});

export const ZFtpRule = ZFtpRuleFields.superRefine((r, ctx) => {
  checkMounts(r.mounts, ['mounts'], ctx);
  if (r.pasvMin > r.pasvMax) ctx.addIssue({ code: 'custom', path: ['pasvMax'], message: msgKey('ftpPasvRangeOrder') });
  else if (r.pasvMax - r.pasvMin + 1 > FTP_MAX_PASSIVE_PORTS) ctx.addIssue({ code: 'custom', path: ['pasvMax'], message: msgKey('ftpPasvRangeTooBig') });
  if (r.port >= r.pasvMin && r.port <= r.pasvMax) ctx.addIssue({ code: 'custom', path: ['pasvMin'], message: msgKey('ftpPasvHoldsControl') });
  if (r.pasvMode === 'fixed' && !isIPv4(r.pasvAddress)) ctx.addIssue({ code: 'custom', path: ['pasvAddress'], message: msgKey('ftpPasvAddressInvalid') });
  if (r.pasvMode === 'ddns' && !ZRuleKey.safeParse(r.pasvDdnsTask).success) ctx.addIssue({ code: 'custom', path: ['pasvDdnsTask'], message: msgKey('ftpDdnsTaskNeeded') });
  if (r.tls !== 'off' && r.certs.length === 0) ctx.addIssue({ code: 'custom', path: ['certs'], message: msgKey('ftpCertNeeded') });
  if (r.requireTls && r.tls !== 'explicit') ctx.addIssue({ code: 'custom', path: ['requireTls'], message: msgKey('ftpRequireTlsNeedsExplicit') });
  if (r.maxPerUser > r.maxConnections) ctx.addIssue({ code: 'custom', path: ['maxPerUser'], message: msgKey('ftpPerUserAboveTotal') });
});
export type FtpRule = z.infer<typeof ZFtpRule>;
export type FtpRuleInput = z.input<typeof ZFtpRule>;

export const ZFtpFigures = z.object({
  /** Control connections open now. */
  connections: z.number(),
  /** Sessions logged in now. */
  sessions: z.number(),
  commands: z.number(),
  uploads: z.number(),
  downloads: z.number(),
  bytesIn: z.number(),
  bytesOut: z.number(),
  /** Refused: login failed or locked out, permission, path outside the storage, limits. */
  denied: z.number(),
});
export type FtpFigures = z.infer<typeof ZFtpFigures>;

export const ZFtpRuleView = ruleView(ZFtpRuleFields, { figures: ZFtpFigures, url: z.string() });
export type FtpRuleView = z.infer<typeof ZFtpRuleView>;

export const ZFtpConfigure = z.object({
  /** A line in the rule's log per command that touches a file (user, command, path, result, bytes). */
  accessLog: z.boolean().default(true),
});
export type FtpConfigure = z.infer<typeof ZFtpConfigure>;

export const ftpserverContract = moduleContract('ftpserver', { input: ZFtpRule, view: ZFtpRuleView, configure: ZFtpConfigure });
export const ftpserverRoutes = ftpserverContract.routes;
