/**
 * Pure helpers of the FTP server screen: a rule as the form holds it (numbers as typed, certificates
 * as the kit's, the mounts as one root storage or named folders), conversion to the contracts'
 * rule, and the messages of its check.
 */
import { ZFtpConfigure, ZFtpRule, type FtpConfigure, type FtpRule, type Lang } from '@lucky/contracts';
import { lang } from '../../i18n';
import { fieldWording, schemaProblems } from '../../kit/form/problems';
import { toNumber, type Num } from '../../kit/form/values';
import { formToMounts, MOUNT_FIELDS, mountProblemField, mountsToForm, type MountsForm } from '../../kit/storage/mounts';
import { certToForm, tlsCertToBody, type CertForm, type TlsCertSource } from '../../kit/tls/certs';
import { ftpTextIn } from './i18n';

type NumberField = 'port' | 'pasvMin' | 'pasvMax' | 'maxConnections' | 'maxPerUser' | 'idleTimeout';

export type RuleForm = Omit<FtpRule, NumberField | 'certs' | 'mounts'> & { [K in NumberField]: Num } & MountsForm & { certs: CertForm<TlsCertSource>[] };

export function toForm(r: FtpRule): RuleForm {
  return {
    name: r.name,
    enable: r.enable,
    address: r.address,
    port: r.port,
    pasvMin: r.pasvMin,
    pasvMax: r.pasvMax,
    pasvMode: r.pasvMode,
    pasvAddress: r.pasvAddress,
    pasvDdnsTask: r.pasvDdnsTask,
    tls: r.tls,
    requireTls: r.requireTls,
    certs: r.certs.map(certToForm),
    anonymous: r.anonymous,
    ...mountsToForm(r.mounts),
    maxConnections: r.maxConnections,
    maxPerUser: r.maxPerUser,
    idleTimeout: r.idleTimeout,
    note: r.note,
  };
}

/** A new rule: the contracts' defaults (port 21, passive 50000-50100), no storage yet. */
export const emptyForm = (): RuleForm => ({ ...toForm(ZFtpRule.parse({ name: 'x', mounts: [{ name: '', storage: 'x' }] })), name: '', rootStorage: '' });

/**
 * The rule as the API takes it. Certificates go only with FTPS (switching it off keeps them in the
 * form); "require TLS" only with explicit FTPS; the mounts are the chosen mode's.
 */
export function formToRule(f: RuleForm): FtpRule {
  return {
    name: f.name.trim(),
    enable: f.enable,
    address: f.address.trim(),
    port: toNumber(f.port),
    pasvMin: toNumber(f.pasvMin),
    pasvMax: toNumber(f.pasvMax),
    pasvMode: f.pasvMode,
    pasvAddress: f.pasvMode === 'fixed' ? f.pasvAddress.trim() : '',
    pasvDdnsTask: f.pasvMode === 'ddns' ? f.pasvDdnsTask : '',
    tls: f.tls,
    requireTls: f.tls === 'explicit' && f.requireTls,
    certs: f.tls !== 'off' ? f.certs.map(tlsCertToBody) : [],
    anonymous: f.anonymous,
    mounts: formToMounts(f),
    maxConnections: toNumber(f.maxConnections),
    maxPerUser: toNumber(f.maxPerUser),
    idleTimeout: toNumber(f.idleTimeout),
    note: f.note,
  };
}

const wording = (inLang: Lang) => fieldWording(inLang, ftpTextIn(inLang), FIELDS);
const FIELDS = [
  'name', 'address', 'port', 'pasvMin', 'pasvMax', 'pasvMode', 'pasvAddress', 'pasvDdnsTask', 'tls', 'requireTls', 'maxConnections', 'maxPerUser', 'idleTimeout',
  ...MOUNT_FIELDS, 'certs', 'certs.cert', 'certs.key', 'certs.domains', 'note',
];

export const checkRule = (f: RuleForm, inLang: Lang = lang) =>
  schemaProblems(ZFtpRule, formToRule(f), wording(inLang)).map((p) => ({ ...p, path: mountProblemField(p.path, f.mountMode) }));

// ---- settings ----

export type SettingsForm = FtpConfigure;
export const settingsToForm = (c: FtpConfigure): SettingsForm => ({ ...c });
export const settingsToBody = (s: SettingsForm): FtpConfigure => ({ accessLog: s.accessLog });
export const checkSettings = (s: SettingsForm, inLang: Lang = lang) => schemaProblems(ZFtpConfigure, settingsToBody(s), wording(inLang));
