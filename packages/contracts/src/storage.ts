/**
 * Network storage. Storage management (module `storage`, menu `storagemanagement`): storages (local directories) as its
 * rules, and the storage users with their per-storage permissions as its settings. WebDAV (`webdav`),
 * FTP (`ftpserver.ts`) and the file browser serve these storages to these users; the one permission
 * and path check is the storage module's (`storages` service).
 */
import { z } from 'zod';
import { ok } from './envelope.js';
import { msgKey } from './i18n.js';
import { isIP, ZPort } from './net.js';
import { route } from './route.js';
import { moduleContract, ruleView, ZRuleKey } from './rules.js';
import { secret } from './secrets.js';
import { parseAuthorizedKeys } from './sshkeys.js';
import { ZTlsCert } from './web.js';

// ------------------------------------------------------------------ storage management

/** Where a storage's files are: a local directory, or a remote server served as if it were one. */
export const STORAGE_KINDS = ['local', 'webdav', 'sftp', 's3'] as const;
export const ZStorageKind = z.enum(STORAGE_KINDS);
export type StorageKind = z.infer<typeof ZStorageKind>;

const HTTP_URL = /^https?:\/\/[^\s/?#]+\S*$/i;
const ZRemoteUrl = z
  .string()
  .trim()
  .max(2048)
  .refine((u) => u === '' || HTTP_URL.test(u), { error: msgKey('invalidUrl') })
  .default('');

/** A remote WebDAV server (Nextcloud, another Lucky, rclone serve webdav…): the folder at `url` is the storage's root. */
export const ZRemoteWebdav = z.object({
  url: ZRemoteUrl,
  username: z.string().max(256).default(''),
  password: secret(z.string().max(1024), { boundTo: ['url', 'username'] }).default(''),
  /** A server with a certificate of its own (a NAS on the LAN): no check of the chain. */
  skipTlsVerify: z.boolean().default(false),
});
export type RemoteWebdav = z.infer<typeof ZRemoteWebdav>;

/** `SHA256:` and 43 base64 characters: a host key's fingerprint as `ssh-keygen -l` prints it. */
export const SSH_FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{43}$/;

/** An SFTP server: the directory `root` on it is the storage's root. Its host key is pinned. */
export const ZRemoteSftp = z.object({
  host: z.string().trim().max(253).default(''),
  port: ZPort.default(22),
  username: z.string().max(256).default(''),
  password: secret(z.string().max(1024), { boundTo: ['host', 'port', 'username'] }).default(''),
  /** An OpenSSH private key (PEM or `-----BEGIN OPENSSH PRIVATE KEY-----`), unencrypted. */
  privateKey: secret(z.string().max(16_384), { boundTo: ['host', 'port', 'username'] }).default(''),
  /** The server's host key fingerprint; "test connection" shows the one it sees. */
  hostKey: z.string().trim().max(64).default(''),
  root: z.string().trim().max(4096).default('/'),
});
export type RemoteSftp = z.infer<typeof ZRemoteSftp>;

/** An S3-compatible bucket (AWS, MinIO, Garage, Ceph, R2…), SigV4; `prefix` is the storage's root inside it. */
export const ZRemoteS3 = z.object({
  endpoint: ZRemoteUrl,
  region: z.string().trim().max(64).default('us-east-1'),
  bucket: z.string().trim().max(63).regex(/^$|^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, { error: msgKey('s3BucketInvalid') }).default(''),
  prefix: z.string().trim().max(1024).default(''),
  accessKeyId: z.string().trim().max(256).default(''),
  secretAccessKey: secret(z.string().max(256), { boundTo: ['endpoint', 'bucket', 'accessKeyId'] }).default(''),
  /** `endpoint/bucket/key` (most self-hosted servers) rather than `bucket.endpoint/key` (AWS's default). */
  pathStyle: z.boolean().default(true),
});
export type RemoteS3 = z.infer<typeof ZRemoteS3>;

export const ZStorageFields = z.object({
  name: z.string().trim().min(1, { error: msgKey('cannotBeEmpty') }).max(64),
  enable: z.boolean().default(true),
  kind: ZStorageKind.default('local'),
  /** The local directory, absolute, that exists (checked at save); unused by remote kinds. */
  path: z
    .string()
    .trim()
    .max(4096)
    .refine((p) => p === '' || (p.startsWith('/') && !p.includes('\0')), { error: msgKey('storagePathAbsolute') })
    .default(''),
  webdav: ZRemoteWebdav.default(ZRemoteWebdav.parse({})),
  sftp: ZRemoteSftp.default(ZRemoteSftp.parse({})),
  s3: ZRemoteS3.default(ZRemoteS3.parse({})),
  /** Seconds a remote listing is reused (our own writes drop it at once); 0 = ask every time. */
  cacheSeconds: z.number().int().min(0).max(3600).default(10),
  readOnly: z.boolean().default(false),
  /** Bytes the storage may hold; null = only the filesystem's limit. */
  quota: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).nullable().default(null),
  note: z.string().max(512).default(''),
});

/** What each kind needs filled in. */
export const ZStorage = ZStorageFields.superRefine((r, ctx) => {
  const need = (ok: boolean, path: (string | number)[], key: Parameters<typeof msgKey>[0] = 'cannotBeEmpty') => {
    if (!ok) ctx.addIssue({ code: 'custom', path, message: msgKey(key) });
  };
  if (r.kind === 'local') need(r.path !== '', ['path'], 'cannotBeEmpty');
  if (r.kind === 'webdav') need(r.webdav.url !== '', ['webdav', 'url']);
  if (r.kind === 'sftp') {
    need(r.sftp.host !== '', ['sftp', 'host']);
    need(r.sftp.username !== '', ['sftp', 'username']);
    need(r.sftp.password !== '' || r.sftp.privateKey !== '', ['sftp', 'password'], 'sftpRemoteNoCredential');
    need(SSH_FINGERPRINT.test(r.sftp.hostKey), ['sftp', 'hostKey'], 'sftpRemoteHostKeyNeeded');
  }
  if (r.kind === 's3') {
    need(r.s3.endpoint !== '', ['s3', 'endpoint']);
    need(r.s3.bucket !== '', ['s3', 'bucket']);
    need(r.s3.accessKeyId !== '' && r.s3.secretAccessKey !== '', ['s3', 'accessKeyId'], 's3CredentialsNeeded');
  }
});
export type Storage = z.infer<typeof ZStorage>;
export type StorageInput = z.input<typeof ZStorage>;

export const ZStorageUsage = z.object({
  /** The filesystem the directory is on. */
  fsTotal: z.number(),
  fsFree: z.number(),
  /** Bytes under the directory (walked in the background; null until known). */
  used: z.number().nullable(),
  /** Unix ms of that walk. */
  usedAt: z.number().nullable(),
  /** The services that serve this storage now: "webdav", "ftpserver"… */
  usedBy: z.array(z.string()),
});
export type StorageUsage = z.infer<typeof ZStorageUsage>;

export const ZStorageView = ruleView(ZStorageFields, { usage: ZStorageUsage });
export type StorageView = z.infer<typeof ZStorageView>;

export const ZStoragePermission = z.object({
  /** List and download. */
  read: z.boolean().default(true),
  /** Upload, make folders, rename, overwrite. */
  write: z.boolean().default(false),
  delete: z.boolean().default(false),
});
export type StoragePermission = z.infer<typeof ZStoragePermission>;

export const ZStorageUser = z.object({
  account: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9._@-]{1,64}$/, { error: msgKey('storageAccountInvalid') }),
  /** scrypt hash once stored; answers show the mask. */
  password: secret(z.string().min(1, { error: msgKey('cannotBeEmpty') }).max(256), { hash: true }),
  enable: z.boolean().default(true),
  /** By storage key; a storage not listed is not seen at all. */
  permissions: z.record(ZRuleKey, ZStoragePermission).default({}),
  /** OpenSSH public keys (`authorized_keys` lines) that log this user in over SFTP without the password. */
  publicKeys: z
    .string()
    .max(65_536)
    .default('')
    .superRefine((text, ctx) => {
      const lines = parseAuthorizedKeys(text);
      const bad = lines.find((l) => 'problem' in l);
      if (bad && 'problem' in bad) ctx.addIssue({ code: 'custom', message: msgKey(bad.problem) });
      else if (lines.length > 64) ctx.addIssue({ code: 'custom', message: msgKey('sshKeyTooMany') });
    }),
  note: z.string().max(512).default(''),
});
export type StorageUser = z.infer<typeof ZStorageUser>;

export const ZStorageConfigure = z
  .object({
    users: z.array(ZStorageUser).max(256).default([]),
    /** Anonymous access: off by default, read-only at most, to the storages listed. */
    anonymous: z.object({ enable: z.boolean().default(false), storages: z.array(ZRuleKey).max(256).default([]) }).default({ enable: false, storages: [] }),
  })
  .superRefine((c, ctx) => {
    const seen = new Set<string>();
    c.users.forEach((u, i) => {
      if (seen.has(u.account.toLowerCase())) ctx.addIssue({ code: 'custom', path: ['users', i, 'account'], message: msgKey('duplicateName') });
      seen.add(u.account.toLowerCase());
    });
  });
export type StorageConfigure = z.infer<typeof ZStorageConfigure>;

export const storageContract = moduleContract('storage', { input: ZStorage, view: ZStorageView, configure: ZStorageConfigure }, {
  checkPath: route({
    method: 'POST',
    path: '/api/storage/checkpath',
    summary: 'Whether a directory exists and can be used as a storage, with its filesystem space',
    module: 'storage',
    body: z.object({ path: z.string().max(4096) }),
    response: ok({ exists: z.boolean(), directory: z.boolean(), writable: z.boolean(), fsTotal: z.number(), fsFree: z.number(), msg: z.string() }),
  }),
  testRemote: route({
    method: 'POST',
    path: '/api/storage/testremote',
    summary: "Connects to a remote storage as the form has it (a stored storage's masked secrets are its own) and lists its root",
    module: 'storage',
    body: z.object({ key: ZRuleKey.optional(), storage: z.unknown() }),
    response: ok({
      ok: z.boolean(),
      msg: z.string(),
      /** Entries at the root, when listed. */
      entries: z.number(),
      /** SFTP: the host key fingerprint the server showed (to pin it). */
      hostKey: z.string(),
    }),
  }),
});
export const storageRoutes = storageContract.routes;

// ------------------------------------------------------------------ every storage service (WebDAV, FTP)

/** One storage in a storage service's tree. */
export const ZStorageMount = z.object({
  /** The top-level folder it shows as: `photos`; empty = the storage is the root of the tree. */
  name: z
    .string()
    .trim()
    .max(128)
    .regex(/^$|^[^/\\\0]+$/, { error: msgKey('webdavMountInvalid') }),
  storage: ZRuleKey,
});
export type StorageMount = z.infer<typeof ZStorageMount>;

/** What a service's tree shows: one storage at the root, or several as top-level folders. */
export const ZStorageMounts = z.array(ZStorageMount).min(1, { error: msgKey('cannotBeEmpty') }).max(64);

/**
 * Mounts that would hide one another: a root storage leaves no room for folders beside it, and the
 * services find a top-level folder by its name regardless of case.
 */
export function checkMounts(mounts: readonly StorageMount[], path: (string | number)[], ctx: z.RefinementCtx): void {
  const root = mounts.findIndex((m) => m.name === '');
  if (root !== -1 && mounts.length > 1) ctx.addIssue({ code: 'custom', path: [...path, root, 'name'], message: msgKey('webdavMountsOverlap') });
  const seen = new Set<string>();
  mounts.forEach((m, i) => {
    const k = m.name.toLowerCase();
    if (seen.has(k)) ctx.addIssue({ code: 'custom', path: [...path, i, 'name'], message: msgKey('webdavMountsOverlap') });
    seen.add(k);
  });
}

// ------------------------------------------------------------------ WebDAV

/** `/dav`, `/`: where the server's tree starts in URLs. */
export const ZUrlPrefix = z
  .string()
  .trim()
  .max(256)
  .regex(/^\/([A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*)?$/, { error: msgKey('webdavPrefixInvalid') });

export const ZWebdavRuleFields = z.object({
  name: z.string().trim().min(1, { error: msgKey('cannotBeEmpty') }).max(64),
  enable: z.boolean().default(true),
  /** Empty = every address. */
  address: z.string().trim().refine((s) => s === '' || isIP(s), { error: msgKey('invalidIp') }).default(''),
  port: z.number().int().min(1, { error: msgKey('invalidPort') }).max(65535, { error: msgKey('invalidPort') }),
  tls: z.boolean().default(false),
  certs: z.array(ZTlsCert).max(16).default([]),
  prefix: ZUrlPrefix.default('/'),
  mounts: ZStorageMounts,
  /** Answers for clients that need them: Windows' mini-redirector, macOS Finder. */
  lockTimeout: z.number().int().min(10).max(86_400).default(3600),
  note: z.string().max(512).default(''),
});

export const ZWebdavRule = ZWebdavRuleFields.superRefine((r, ctx) => {
  checkMounts(r.mounts, ['mounts'], ctx);
  if (r.tls && r.certs.length === 0) ctx.addIssue({ code: 'custom', path: ['certs'], message: msgKey('statusCertNeeded') });
});
export type WebdavRule = z.infer<typeof ZWebdavRule>;
export type WebdavRuleInput = z.input<typeof ZWebdavRule>;

export const ZWebdavFigures = z.object({
  connections: z.number(),
  requests: z.number(),
  bytesIn: z.number(),
  bytesOut: z.number(),
  /** Requests refused: login failed or locked out, permission, path outside the storage. */
  denied: z.number(),
});
export type WebdavFigures = z.infer<typeof ZWebdavFigures>;

export const ZWebdavRuleView = ruleView(ZWebdavRuleFields, { figures: ZWebdavFigures, url: z.string() });
export type WebdavRuleView = z.infer<typeof ZWebdavRuleView>;

export const ZWebdavConfigure = z.object({
  /** Lines of the per-request access log kept per rule. */
  accessLogLines: z.number().int().min(0).max(1000).default(200),
});
export type WebdavConfigure = z.infer<typeof ZWebdavConfigure>;

export const webdavContract = moduleContract('webdav', { input: ZWebdavRule, view: ZWebdavRuleView, configure: ZWebdavConfigure });
export const webdavRoutes = webdavContract.routes;
