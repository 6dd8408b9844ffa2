/**
 * SFTP server (module `sftpserver`): one SSH listener per rule that offers the SFTP subsystem
 * alone (no shell, no exec, no forwarding) over the storages of storage management, to its storage
 * users by password or by their OpenSSH public keys, with the one permission and path check of
 * the `storages` service. The host keys are the daemon's, made once and kept.
 */
import { z } from 'zod';
import { ok } from './envelope.js';
import { msgKey } from './i18n.js';
import { isIP, ZPort } from './net.js';
import { route } from './route.js';
import { moduleContract, ruleView } from './rules.js';
import { checkMounts, ZStorageMounts } from './storage.js';

export const ZSftpRuleFields = z.object({
  name: z.string().trim().min(1, { error: msgKey('cannotBeEmpty') }).max(64),
  enable: z.boolean().default(true),
  /** Empty = every address, IPv4 and IPv6. */
  address: z.string().trim().refine((s) => s === '' || isIP(s), { error: msgKey('invalidIp') }).default(''),
  port: ZPort.default(2222),
  mounts: ZStorageMounts,
  /** Storage users log in with their password. */
  passwordLogin: z.boolean().default(true),
  /** Storage users log in with one of their public keys (storage management, per user). */
  keyLogin: z.boolean().default(true),
  maxConnections: z.number().int().min(1).max(10_000).default(50),
  maxPerUser: z.number().int().min(1).max(10_000).default(8),
  /** Seconds without a request (and no transfer running) before the connection is closed. */
  idleTimeout: z.number().int().min(10).max(86_400).default(300),
  note: z.string().max(512).default(''),
});

export const ZSftpRule = ZSftpRuleFields.superRefine((r, ctx) => {
  checkMounts(r.mounts, ['mounts'], ctx);
  if (!r.passwordLogin && !r.keyLogin) ctx.addIssue({ code: 'custom', path: ['keyLogin'], message: msgKey('sftpNoLoginMethod') });
  if (r.maxPerUser > r.maxConnections) ctx.addIssue({ code: 'custom', path: ['maxPerUser'], message: msgKey('ftpPerUserAboveTotal') });
});
export type SftpRule = z.infer<typeof ZSftpRule>;
export type SftpRuleInput = z.input<typeof ZSftpRule>;

export const ZSftpFigures = z.object({
  /** SSH connections open now. */
  connections: z.number(),
  /** Connections logged in now. */
  sessions: z.number(),
  /** SFTP requests answered. */
  requests: z.number(),
  uploads: z.number(),
  downloads: z.number(),
  bytesIn: z.number(),
  bytesOut: z.number(),
  /** Refused: login failed or locked out, permission, path outside the storage, limits, a shell or a forward asked for. */
  denied: z.number(),
});
export type SftpFigures = z.infer<typeof ZSftpFigures>;

export const ZSftpRuleView = ruleView(ZSftpRuleFields, { figures: ZSftpFigures, url: z.string() });
export type SftpRuleView = z.infer<typeof ZSftpRuleView>;

export const ZSftpConfigure = z.object({
  /** A line in the rule's log per request that changes or transfers a file (user, operation, path, result, bytes). */
  accessLog: z.boolean().default(true),
});
export type SftpConfigure = z.infer<typeof ZSftpConfigure>;

/** One of the server's host keys, as a client shows it on first connection. */
export const ZSftpHostKey = z.object({
  /** `ssh-ed25519`, `rsa-sha2-512`… as OpenSSH names the key type (`ssh-rsa` for RSA). */
  type: z.string(),
  /** `SHA256:` and the unpadded base64 of the key blob's SHA-256, as `ssh-keygen -lf` prints it. */
  fingerprint: z.string(),
  /** The public key as a `known_hosts` / `authorized_keys` line would hold it: `type base64`. */
  publicKey: z.string(),
});
export type SftpHostKey = z.infer<typeof ZSftpHostKey>;

export const sftpserverContract = moduleContract(
  'sftpserver',
  { input: ZSftpRule, view: ZSftpRuleView, configure: ZSftpConfigure },
  {
    hostKeys: route({
      method: 'GET',
      path: '/api/sftpserver/hostkeys',
      summary: "The SFTP server's host keys (made once, kept) with their SHA256 fingerprints, to check on a client's first connection",
      module: 'sftpserver',
      response: ok({ keys: z.array(ZSftpHostKey) }),
    }),
  },
);
export const sftpserverRoutes = sftpserverContract.routes;
