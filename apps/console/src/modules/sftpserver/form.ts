/**
 * Pure helpers of the SFTP server screen: a rule as the form holds it (numbers as typed, the mounts
 * as one root storage or named folders), conversion to the contracts' rule, and the messages of
 * its check.
 */
import { ZSftpConfigure, ZSftpRule, type Lang, type SftpConfigure, type SftpRule } from '@lucky/contracts';
import { lang } from '../../i18n';
import { fieldWording, schemaProblems } from '../../kit/form/problems';
import { toNumber, type Num } from '../../kit/form/values';
import { formToMounts, MOUNT_FIELDS, mountProblemField, mountsToForm, type MountsForm } from '../../kit/storage/mounts';
import { sftpTextIn } from './i18n';

type NumberField = 'port' | 'maxConnections' | 'maxPerUser' | 'idleTimeout';

export type RuleForm = Omit<SftpRule, NumberField | 'mounts'> & { [K in NumberField]: Num } & MountsForm;

export function toForm(r: SftpRule): RuleForm {
  return {
    name: r.name,
    enable: r.enable,
    address: r.address,
    port: r.port,
    ...mountsToForm(r.mounts),
    passwordLogin: r.passwordLogin,
    keyLogin: r.keyLogin,
    maxConnections: r.maxConnections,
    maxPerUser: r.maxPerUser,
    idleTimeout: r.idleTimeout,
    note: r.note,
  };
}

/** A new rule: the contracts' defaults (port 2222, both logins), no storage yet. */
export const emptyForm = (): RuleForm => ({ ...toForm(ZSftpRule.parse({ name: 'x', mounts: [{ name: '', storage: 'x' }] })), name: '', rootStorage: '' });

/** The rule as the API takes it: the mounts are the chosen mode's. */
export function formToRule(f: RuleForm): SftpRule {
  return {
    name: f.name.trim(),
    enable: f.enable,
    address: f.address.trim(),
    port: toNumber(f.port),
    mounts: formToMounts(f),
    passwordLogin: f.passwordLogin,
    keyLogin: f.keyLogin,
    maxConnections: toNumber(f.maxConnections),
    maxPerUser: toNumber(f.maxPerUser),
    idleTimeout: toNumber(f.idleTimeout),
    note: f.note,
  };
}

const wording = (inLang: Lang) => fieldWording(inLang, sftpTextIn(inLang), FIELDS);
const FIELDS = ['name', 'address', 'port', 'passwordLogin', 'keyLogin', 'maxConnections', 'maxPerUser', 'idleTimeout', ...MOUNT_FIELDS, 'note'];

export const checkRule = (f: RuleForm, inLang: Lang = lang) =>
  schemaProblems(ZSftpRule, formToRule(f), wording(inLang)).map((p) => ({ ...p, path: mountProblemField(p.path, f.mountMode) }));

// ---- settings ----

export type SettingsForm = SftpConfigure;
export const settingsToForm = (c: SftpConfigure): SettingsForm => ({ ...c });
export const settingsToBody = (s: SettingsForm): SftpConfigure => ({ accessLog: s.accessLog });
export const checkSettings = (s: SettingsForm, inLang: Lang = lang) => schemaProblems(ZSftpConfigure, settingsToBody(s), wording(inLang));
