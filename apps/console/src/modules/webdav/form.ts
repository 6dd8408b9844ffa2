/**
 * Pure helpers of the WebDAV screen: a rule as the form holds it (port and lock timeout as typed,
 * certificates as the kit's, the mounts as one root storage or named folders), conversion to the
 * contracts' rule, and the messages of its check.
 */
import { ZWebdavConfigure, ZWebdavRule, type Lang, type WebdavConfigure, type WebdavRule } from '@lucky/contracts';
import { lang } from '../../i18n';
import { fieldWording, schemaProblems } from '../../kit/form/problems';
import { toNumber, type Num } from '../../kit/form/values';
import { formToMounts, MOUNT_FIELDS, mountProblemField, mountsToForm, type MountsForm } from '../../kit/storage/mounts';
import { certToForm, tlsCertToBody, type CertForm, type TlsCertSource } from '../../kit/tls/certs';
import { webdavTextIn } from './i18n';

export type RuleForm = Omit<WebdavRule, 'port' | 'certs' | 'mounts' | 'lockTimeout'> & MountsForm & {
  port: Num;
  certs: CertForm<TlsCertSource>[];
  lockTimeout: Num;
};

export function toForm(r: WebdavRule): RuleForm {
  return {
    name: r.name,
    enable: r.enable,
    address: r.address,
    port: r.port,
    tls: r.tls,
    certs: r.certs.map(certToForm),
    prefix: r.prefix,
    ...mountsToForm(r.mounts),
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
  return {
    name: f.name.trim(),
    enable: f.enable,
    address: f.address.trim(),
    port: toNumber(f.port),
    tls: f.tls,
    certs: f.tls ? f.certs.map(tlsCertToBody) : [],
    prefix: f.prefix.trim(),
    mounts: formToMounts(f),
    lockTimeout: toNumber(f.lockTimeout),
    note: f.note,
  };
}

const wording = (inLang: Lang) => fieldWording(inLang, webdavTextIn(inLang), FIELDS);
const FIELDS = ['name', 'address', 'port', 'prefix', ...MOUNT_FIELDS, 'certs', 'certs.cert', 'certs.key', 'certs.domains', 'lockTimeout', 'note', 'accessLogLines'];

export const checkRule = (f: RuleForm, inLang: Lang = lang) =>
  schemaProblems(ZWebdavRule, formToRule(f), wording(inLang)).map((p) => ({ ...p, path: mountProblemField(p.path, f.mountMode) }));

// ---- settings ----

export type SettingsForm = { accessLogLines: Num };
export const settingsToForm = (c: WebdavConfigure): SettingsForm => ({ ...c });
export const settingsToBody = (s: SettingsForm): WebdavConfigure => ({ accessLogLines: toNumber(s.accessLogLines) });
export const checkSettings = (s: SettingsForm, inLang: Lang = lang) => schemaProblems(ZWebdavConfigure, settingsToBody(s), wording(inLang));
