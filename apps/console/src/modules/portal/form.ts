/**
 * Pure helpers of the login portal screen: a portal user as the form holds it (a stored password
 * and TOTP secret come back as the mask, which keeps them), the web rules a user may open, the
 * module settings.
 */
import { renderMsg, SECRET_MASK, ZPortalSettings, ZPortalUser, type Lang, type PortalSettings, type PortalUser, type PortalUserView, type WebRuleView } from '@lucky/contracts';
import { lang } from '../../i18n';
import { fieldWording, schemaProblems, type FormProblem } from '../../kit/form/problems';
import { toNumber, type Num } from '../../kit/form/values';
import { portalTextIn, type PortalText, type PortalTextId } from './i18n';

// ---- a user ----

export type UserForm = PortalUser & {
  /** The user came from the daemon: an empty password keeps the stored one. */
  stored: boolean;
};

export const emptyForm = (): UserForm => ({ ...ZPortalUser.parse({ name: 'x' }), name: '', stored: false });

export const toForm = (u: PortalUserView): UserForm => ({ name: u.name, enable: u.enable, password: u.password, totp: u.totp, rules: [...u.rules], note: u.note, stored: true });

/** The user as the API takes it; a stored user's emptied password goes as the mask, which keeps it. */
export function formToRule(f: UserForm): PortalUser {
  return {
    name: f.name.trim(),
    enable: f.enable,
    password: f.stored && f.password === '' ? SECRET_MASK : f.password,
    totp: f.totp,
    rules: f.rules,
    note: f.note,
  };
}

const FIELDS = ['name', 'password', 'totp', 'rules', 'note', 'cookieDomain', 'idleMinutes', 'absoluteHours'] as const;
const wording = (inLang: Lang) => fieldWording<PortalTextId>(inLang, portalTextIn(inLang), FIELDS);

/** What the daemon refuses beyond the schema: a new user without a password (in its own words). */
function passwordProblem(f: UserForm, inLang: Lang): FormProblem[] {
  if (f.stored || f.password !== '') return [];
  const message = renderMsg(inLang, { key: 'portalPasswordRequired' });
  return [{ path: 'password', field: 'password', message, inline: message, summary: message }];
}

export function checkRule(f: UserForm, inLang: Lang = lang): FormProblem[] {
  const found = schemaProblems(ZPortalUser, formToRule(f), wording(inLang));
  return found.length ? found : passwordProblem(f, inLang);
}

/** Under the password: a new user needs one; a stored one is kept while the field is empty (the mask says so itself). */
export function passwordHint(f: Pick<UserForm, 'stored' | 'password'>, text: PortalText): string | undefined {
  if (!f.stored) return text('passwordNew');
  return f.password === SECRET_MASK ? undefined : text('passwordKeep', { mask: SECRET_MASK });
}

/** Where the user's second factor stands: stored (the mask), set up in this form and not saved yet, or off. */
export type TotpState = 'on' | 'new' | 'off';
export const totpState = (totp: string): TotpState => (totp === SECRET_MASK ? 'on' : totp === '' ? 'off' : 'new');

// ---- the web rules a user may open ----

type WebRuleChoice = Pick<WebRuleView, 'key' | 'name' | 'portal' | 'subRules'>;

/** Whether Lucky login is on anywhere in the rule (on it, or on one of its sub rules). */
export const requiresLogin = (r: WebRuleChoice): boolean => r.portal.enable || r.subRules.some((s) => s.portal.enable);

/** The choices of the user's web rules: every rule by name, one without Lucky login marked, a deleted one still there to take out. */
export function ruleChoices(rules: readonly WebRuleChoice[] | undefined, chosen: readonly string[], text: PortalText): { value: string; label: string }[] {
  const known = new Set((rules ?? []).map((r) => r.key));
  return [
    ...(rules ?? []).map((r) => ({ value: r.key, label: requiresLogin(r) ? r.name : text('ruleNoLogin', { name: r.name }) })),
    // Until the rules are known, a key is not called missing.
    ...chosen.filter((k) => rules && !known.has(k)).map((k) => ({ value: k, label: text('ruleMissing', { key: k }) })),
  ];
}

/** The rules a user may open as the list names them; a deleted rule by its key (and, before the rules are read, every one). */
export function ruleNames(keys: readonly string[], rules: readonly Pick<WebRuleView, 'key' | 'name'>[] | undefined, text: PortalText): { key: string; label: string }[] {
  return keys.map((key) => {
    const name = rules?.find((r) => r.key === key)?.name;
    return { key, label: name ?? (rules ? text('ruleMissing', { key }) : key) };
  });
}

// ---- settings ----

export type SettingsForm = { cookieDomain: string; idleMinutes: Num; absoluteHours: Num };

export const settingsToForm = (c: PortalSettings): SettingsForm => ({ ...c });
/** The whole settings object: PUT replaces it. */
export const settingsToBody = (s: SettingsForm): PortalSettings => ({ cookieDomain: s.cookieDomain.trim(), idleMinutes: toNumber(s.idleMinutes), absoluteHours: toNumber(s.absoluteHours) });
export const checkSettings = (s: SettingsForm, inLang: Lang = lang) => schemaProblems(ZPortalSettings, settingsToBody(s), wording(inLang));
