/**
 * Pure helpers of the WebDAV screen: a rule as the form holds it (port and lock timeout as typed,
 * certificates as the kit's, the mounts as one root storage or named folders), conversion to the
 * contracts' rule, the messages of its check, and the list's texts.
 */
import { ZWebdavConfigure, ZWebdavRule, type Lang, type StorageView, type WebdavConfigure, type WebdavFigures, type WebdavRule } from '@lucky/contracts';
import { lang } from '../../i18n';
import { schemaProblems, type ProblemWording } from '../../kit/form/problems';
import { toNumber, type Num } from '../../kit/form/values';
import { certToBody, certToForm, type CertForm } from '../../kit/tls/certs';
import { formatBytes } from '../../lib/helpers';
import { webdavTextIn, type WebdavText } from './i18n';

export type MountMode = 'root' | 'folders';
export interface FolderForm {
  name: string;
  storage: string;
}

export type RuleForm = Omit<WebdavRule, 'port' | 'certs' | 'mounts' | 'lockTimeout'> & {
  port: Num;
  certs: CertForm[];
  mountMode: MountMode;
  /** The storage at the root ('' = none chosen yet). */
  rootStorage: string;
  folders: FolderForm[];
  lockTimeout: Num;
};

const isRootMount = (mounts: WebdavRule['mounts']) => mounts.length === 1 && mounts[0]!.name === '';

export function toForm(r: WebdavRule): RuleForm {
  const root = isRootMount(r.mounts);
  return {
    name: r.name,
    enable: r.enable,
    address: r.address,
    port: r.port,
    tls: r.tls,
    certs: r.certs.map(certToForm),
    prefix: r.prefix,
    mountMode: root ? 'root' : 'folders',
    rootStorage: root ? r.mounts[0]!.storage : '',
    folders: root ? [] : r.mounts.map((m) => ({ ...m })),
    lockTimeout: r.lockTimeout,
    note: r.note,
  };
}

/** A new rule: the contracts' defaults, port 8080 suggested, no storage yet. */
export const emptyForm = (): RuleForm => ({ ...toForm(ZWebdavRule.parse({ name: 'x', port: 8080, mounts: [{ name: '', storage: 'x' }] })), name: '', rootStorage: '' });

/**
 * The rule as the API takes it. Certificates go only with TLS (switching it off keeps them in the
 * form); the mounts are the chosen mode's.
 */
export function formToRule(f: RuleForm): WebdavRule {
  const mounts =
    f.mountMode === 'root' ? (f.rootStorage ? [{ name: '', storage: f.rootStorage }] : []) : f.folders.map((m) => ({ name: m.name.trim(), storage: m.storage }));
  return {
    name: f.name.trim(),
    enable: f.enable,
    address: f.address.trim(),
    port: toNumber(f.port),
    tls: f.tls,
    certs: f.tls ? f.certs.map(certToBody) : [],
    prefix: f.prefix.trim(),
    mounts,
    lockTimeout: toNumber(f.lockTimeout),
    note: f.note,
  };
}

type TextId = Parameters<WebdavText>[0];

/** Which field a problem is shown on: a root mount's on the storage choice. */
export function problemField(path: string, mode: MountMode): string {
  if (mode === 'root' && path.startsWith('mounts')) return 'rootStorage';
  return path;
}

function wording(inLang: Lang): ProblemWording {
  const text = webdavTextIn(inLang);
  return {
    lang: inLang,
    text,
    label: (path) => {
      const id = `field.${path.filter((x): x is string => typeof x === 'string').join('.')}`;
      return id in FIELD_IDS ? text(id as TextId) : id.slice(6);
    },
    shortInline: true,
  };
}
const FIELD_IDS: Record<string, true> = Object.fromEntries(
  ['name', 'address', 'port', 'prefix', 'mounts', 'mounts.name', 'mounts.storage', 'certs', 'certs.cert', 'certs.key', 'certs.domains', 'lockTimeout', 'note', 'accessLogLines'].map((f) => [`field.${f}`, true]),
);

export const checkRule = (f: RuleForm, inLang: Lang = lang) =>
  schemaProblems(ZWebdavRule, formToRule(f), wording(inLang)).map((p) => ({ ...p, path: problemField(p.path, f.mountMode) }));

// ---- list ----

/** What a rule serves, one line a mount: `root → photos`, `photos → Photos`. */
export function mountLines(mounts: WebdavRule['mounts'], storages: readonly Pick<StorageView, 'key' | 'name'>[] | undefined, text: WebdavText): string[] {
  const nameOf = (key: string) => storages?.find((s) => s.key === key)?.name ?? (storages ? text('storageMissing', { key }) : key);
  if (isRootMount(mounts)) return [text('mountRoot', { storage: nameOf(mounts[0]!.storage) })];
  return mounts.map((m) => `${m.name} → ${nameOf(m.storage)}`);
}

export function figuresText(s: WebdavFigures) {
  return { bytesIn: formatBytes(s.bytesIn), bytesOut: formatBytes(s.bytesOut) };
}

// ---- settings ----

export type SettingsForm = { accessLogLines: Num };
export const settingsToForm = (c: WebdavConfigure): SettingsForm => ({ ...c });
export const settingsToBody = (s: SettingsForm): WebdavConfigure => ({ accessLogLines: toNumber(s.accessLogLines) });
export const checkSettings = (s: SettingsForm, inLang: Lang = lang) => schemaProblems(ZWebdavConfigure, settingsToBody(s), wording(inLang));
