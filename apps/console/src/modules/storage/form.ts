/**
 * Pure helpers of the storage screen: a storage as the form holds it (the quota as a number and a
 * unit, the numbers as typed), "test connection" (what it sends, the host key it offers to pin), the
 * list's location and usage figures, and the storage users — the whole settings object PUT replaces,
 * with a user's form, its password kept by the mask, and the permission matrix's changes.
 */
import {
  MESSAGES,
  parseAuthorizedKeys,
  SECRET_MASK,
  STORAGE_KINDS,
  ZRemoteS3,
  ZRemoteSftp,
  ZRemoteWebdav,
  ZStorage,
  ZStorageConfigure,
  ZStorageFields,
  type Lang,
  type RemoteSftp,
  type RouteInput,
  type RouteResponse,
  type Storage,
  type StorageConfigure,
  type StorageKind,
  type StoragePermission,
  type StorageUsage,
  type StorageUser,
  type storageRoutes,
} from '@lucky/contracts';
import { lang } from '../../i18n';
import { schemaProblems, type ProblemWording } from '../../kit/form/problems';
import { toNumber, type Num } from '../../kit/form/values';
import { storageTextIn, type StorageText } from './i18n';

// ---- a storage ----

/** Quota units, 1000-based like the sizes the list shows. */
export const QUOTA_UNITS = { MB: 1e6, GB: 1e9, TB: 1e12 } as const;
export type QuotaUnit = keyof typeof QUOTA_UNITS;

/** An SFTP remote with its port as typed. */
export type SftpForm = Omit<RemoteSftp, 'port'> & { port: Num };

export type RuleForm = Omit<Storage, 'quota' | 'sftp' | 'cacheSeconds'> & { sftp: SftpForm; cacheSeconds: Num; quota: Num; quotaUnit: QuotaUnit };

/** The kinds in the order the selector shows them. */
export const KINDS: readonly StorageKind[] = STORAGE_KINDS;

/** A quota in the largest unit it is a whole number of (MB otherwise, with decimals). */
export function quotaToForm(quota: number | null): { quota: Num; quotaUnit: QuotaUnit } {
  if (quota === null) return { quota: '', quotaUnit: 'GB' };
  const unit = (['TB', 'GB', 'MB'] as const).find((u) => quota % QUOTA_UNITS[u] === 0) ?? 'MB';
  return { quota: quota / QUOTA_UNITS[unit], quotaUnit: unit };
}

/** '' → null (no quota); not a number → NaN so validation names the field. */
export function quotaToBytes(quota: Num, unit: QuotaUnit): number | null {
  if (typeof quota === 'string' && quota.trim() === '') return null;
  const n = toNumber(quota);
  return Number.isFinite(n) ? Math.round(n * QUOTA_UNITS[unit]) : Number.NaN;
}

export const toForm = (s: Storage): RuleForm => ({
  name: s.name,
  enable: s.enable,
  kind: s.kind,
  path: s.path,
  webdav: s.webdav,
  sftp: s.sftp,
  s3: s.s3,
  cacheSeconds: s.cacheSeconds,
  readOnly: s.readOnly,
  ...quotaToForm(s.quota),
  note: s.note,
});

export const emptyForm = (): RuleForm => ({
  name: '',
  enable: true,
  kind: 'local',
  path: '',
  webdav: ZRemoteWebdav.parse({}),
  sftp: ZRemoteSftp.parse({}),
  s3: ZRemoteS3.parse({}),
  cacheSeconds: ZStorageFields.shape.cacheSeconds.parse(undefined),
  readOnly: false,
  quota: '',
  quotaUnit: 'GB',
  note: '',
});

export const formToRule = (f: RuleForm): Storage => ({
  name: f.name.trim(),
  enable: f.enable,
  kind: f.kind,
  path: f.path.trim(),
  webdav: f.webdav,
  sftp: { ...f.sftp, port: toNumber(f.sftp.port) },
  s3: f.s3,
  cacheSeconds: toNumber(f.cacheSeconds),
  readOnly: f.readOnly,
  quota: quotaToBytes(f.quota, f.quotaUnit),
  note: f.note,
});

const FIELDS = [
  'name',
  'kind',
  'path',
  'quota',
  'note',
  'account',
  'password',
  'publicKeys',
  'cacheSeconds',
  // a remote's own fields (`webdav.url`, `sftp.hostKey`, `s3.bucket`: by their last name)
  'url',
  'username',
  'host',
  'port',
  'privateKey',
  'hostKey',
  'root',
  'endpoint',
  'region',
  'bucket',
  'prefix',
  'accessKeyId',
  'secretAccessKey',
] as const;
const SERVICES = ['webdav', 'ftpserver', 'sftpserver', 'filebrowser'] as const;
const known = <T extends string>(list: readonly T[], s: string): s is T => (list as readonly string[]).includes(s);

/** Field names in messages: a user's fields (`users.2.account`) and a remote's (`sftp.hostKey`) by their last name. */
function wording(inLang: Lang): ProblemWording {
  const text = storageTextIn(inLang);
  return {
    lang: inLang,
    text,
    label: (path) => {
      const name = path.filter((x): x is string => typeof x === 'string').at(-1) ?? '';
      return known(FIELDS, name) ? text(`field.${name}`) : name;
    },
    // A user's problems belong to the one user edited: no "line n".
    row: () => undefined,
    shortInline: true,
  };
}

export const checkRule = (f: RuleForm, inLang: Lang = lang) => schemaProblems(ZStorage, formToRule(f), wording(inLang));

// ---- test connection ----

export type RemoteTestBody = RouteInput<typeof storageRoutes.testRemote>['body'];
export type RemoteTestAnswer = RouteResponse<typeof storageRoutes.testRemote>;

/** The form as it is; with the key of the storage edited, so that its masked secrets stand for the stored ones. */
export const remoteTestBody = (f: RuleForm, key: string | null): RemoteTestBody => ({ ...(key ? { key } : {}), storage: formToRule(f) });

/** The fingerprint an SFTP server showed, when the form pins none or another one: what the pin button offers. */
export function hostKeyToPin(f: RuleForm, answer: Pick<RemoteTestAnswer, 'hostKey'>): string | null {
  return f.kind === 'sftp' && answer.hostKey !== '' && answer.hostKey !== f.sftp.hostKey.trim() ? answer.hostKey : null;
}

// ---- the list ----

/** Where a storage's files are, as the list shows it: the directory, or the remote server. */
export function storageWhere(s: Pick<Storage, 'kind' | 'path' | 'webdav' | 'sftp' | 's3'>): string {
  switch (s.kind) {
    case 'local':
      return s.path;
    case 'webdav':
      return s.webdav.url;
    case 'sftp': {
      const root = s.sftp.root.startsWith('/') ? s.sftp.root : `/${s.sftp.root}`;
      return `sftp://${s.sftp.host}${s.sftp.port === 22 ? '' : `:${s.sftp.port}`}${root}`;
    }
    case 's3':
      return `s3://${s.s3.bucket}${s.s3.prefix ? `/${s.s3.prefix.replace(/^\/+/, '')}` : ''} @ ${s.s3.endpoint}`;
  }
}

export interface UsageBar {
  used: number;
  total: number;
  /** 0-100. */
  percent: number;
}

const bar = (used: number, total: number): UsageBar => ({ used, total, percent: total > 0 ? Math.min(100, Math.max(0, (used / total) * 100)) : 0 });

/** The storage's bar (with a quota; null while the walk has not ended) and the filesystem's. */
export function usageBars(quota: number | null, u: StorageUsage): { quota: UsageBar | null; counting: boolean; fs: UsageBar } {
  return {
    quota: quota !== null && u.used !== null ? bar(u.used, quota) : null,
    counting: quota !== null && u.used === null,
    fs: bar(u.fsTotal - u.fsFree, u.fsTotal),
  };
}

/** Green, then orange past 80 %, red past 95 %. */
export const barColor = (percent: number) => (percent >= 95 ? 'red' : percent >= 80 ? 'orange' : 'blue');

/** A service in the reader's language: its menu name when known. */
export function serviceName(service: string, text: StorageText): string {
  return known(SERVICES, service) ? text(`service.${service}`) : service;
}

// ---- users and permissions ----

export interface UserForm {
  account: string;
  /** The mask while a stored password is kept; empty keeps it too. */
  password: string;
  enable: boolean;
  /** OpenSSH public keys, one `authorized_keys` line each, as typed. */
  publicKeys: string;
  note: string;
}

export const emptyUser = (): UserForm => ({ account: '', password: '', enable: true, publicKeys: '', note: '' });
export const userToForm = (u: StorageUser): UserForm => ({ account: u.account, password: u.password, enable: u.enable, publicKeys: u.publicKeys, note: u.note });

/**
 * The whole settings object with user `index` replaced by the form (null: added at the end, with
 * no storage yet). An existing user's empty password goes as the mask: the stored one is kept.
 */
export function withUser(c: StorageConfigure, index: number | null, f: UserForm): StorageConfigure {
  const old = index === null ? undefined : c.users[index];
  const password = old && f.password === '' ? SECRET_MASK : f.password;
  const user: StorageUser = { account: f.account.trim(), password, enable: f.enable, permissions: old?.permissions ?? {}, publicKeys: f.publicKeys, note: f.note };
  const users = index === null ? [...c.users, user] : c.users.map((u, i) => (i === index ? user : u));
  return { ...c, users };
}

/**
 * What the public keys field says as it is typed: how many lines are keys the SFTP server can use,
 * and each line that is not, by its number, in the reader's language (the contracts read the lines,
 * as the daemon does).
 */
export function publicKeysSummary(keys: string, inLang: Lang = lang): { count: number; problems: { line: number; message: string }[] } {
  const text = storageTextIn(inLang);
  const lines = parseAuthorizedKeys(keys);
  const problems = lines.flatMap((l) => ('problem' in l ? [{ line: l.line, message: text('publicKeyLine', { line: l.line, problem: MESSAGES[inLang][l.problem] }) }] : []));
  return { count: lines.length - problems.length, problems };
}

export const withoutUser = (c: StorageConfigure, index: number): StorageConfigure => ({ ...c, users: c.users.filter((_, i) => i !== index) });

/** The problems of the one user edited, with the settings object checked as the daemon will. */
export function checkUser(c: StorageConfigure, index: number | null, f: UserForm, inLang: Lang = lang) {
  const at = index ?? c.users.length;
  return schemaProblems(ZStorageConfigure, withUser(c, index, f), wording(inLang))
    .filter((p) => p.path.startsWith(`users.${at}.`))
    .map((p) => ({ ...p, path: p.path.slice(`users.${at}.`.length) }));
}

export type PermissionOp = keyof StoragePermission;
export const PERMISSION_OPS = ['read', 'write', 'delete'] as const satisfies readonly PermissionOp[];
const NONE: StoragePermission = { read: false, write: false, delete: false };

export const permissionOf = (u: StorageUser, storage: string): StoragePermission => u.permissions[storage] ?? NONE;

/**
 * One box of the matrix: writing or deleting needs reading (what is not seen cannot be changed), so
 * ticking them ticks read and unticking read unticks them; a read-only storage takes read alone;
 * a storage with nothing ticked is not listed (not seen at all).
 */
export function withPermission(c: StorageConfigure, index: number, storage: string, op: PermissionOp, on: boolean, readOnly: boolean): StorageConfigure {
  return {
    ...c,
    users: c.users.map((u, i) => {
      if (i !== index) return u;
      const p = { ...permissionOf(u, storage), [op]: on };
      if (on && op !== 'read') p.read = true;
      if (!p.read || readOnly) Object.assign(p, { write: false, delete: false });
      const { [storage]: _dropped, ...rest } = u.permissions;
      return { ...u, permissions: p.read ? { ...rest, [storage]: p } : rest };
    }),
  };
}

/** Anonymous access: on or off, and a storage it may read added or taken out. */
export function withAnonymous(c: StorageConfigure, change: { enable?: boolean; storage?: string; on?: boolean }): StorageConfigure {
  let storages = c.anonymous.storages;
  if (change.storage !== undefined) storages = change.on ? [...storages.filter((s) => s !== change.storage), change.storage] : storages.filter((s) => s !== change.storage);
  return { ...c, anonymous: { enable: change.enable ?? c.anonymous.enable, storages } };
}
