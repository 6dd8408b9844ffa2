/**
 * The module settings form: numbers as typed, the webhook's headers as lines, the automatic
 * certificates' CA as the rule form holds it; checked with the contracts' schema.
 */
import { ZAcmeConfigure, type AcmeAuto, type AcmeConfigure, type Lang, type Webhook } from '@lucky/contracts';
import { lang } from '../../i18n';
import { fieldWording, schemaProblems } from '../../kit/form/problems';
import { toNumber, type Num } from '../../kit/form/values';
import { webhookToBody, webhookToForm, type WebhookFormOf } from '../../kit/webhook/request';
import { acmeTextIn } from './i18n';

export type AutoForm = Omit<AcmeAuto, 'renewBeforeDays'> & { renewBeforeDays: Num };

export type SettingsForm = Omit<AcmeConfigure, 'checkHours' | 'warnDays' | 'webhook' | 'auto'> & { checkHours: Num; warnDays: Num; webhook: WebhookFormOf<Webhook>; auto: AutoForm };

export const settingsToForm = (c: AcmeConfigure): SettingsForm => ({ ...c, webhookEvents: [...c.webhookEvents], webhook: webhookToForm(c.webhook), auto: { ...c.auto } });

/** Typed text trimmed as the rule form does; the HMAC key (a secret, maybe the mask) goes as it is. */
const autoToBody = (a: AutoForm): AcmeAuto => ({
  ...a,
  directoryUrl: a.directoryUrl.trim(),
  email: a.email.trim(),
  eabKid: a.eabKid.trim(),
  renewBeforeDays: toNumber(a.renewBeforeDays),
});

/** The whole settings object: PUT replaces it. */
export const settingsToBody = (s: SettingsForm): AcmeConfigure => ({
  checkHours: toNumber(s.checkHours),
  warnDays: toNumber(s.warnDays),
  webhook: webhookToBody<Webhook>(s.webhook),
  webhookEvents: s.webhookEvents,
  auto: autoToBody(s.auto),
});

const FIELDS = ['checkHours', 'warnDays', 'webhookEvents', 'auto.directoryUrl', 'auto.caRoot', 'auto.email', 'auto.eabKid', 'auto.eabHmac', 'auto.renewBeforeDays'] as const;

export const checkSettings = (s: SettingsForm, inLang: Lang = lang) =>
  schemaProblems(ZAcmeConfigure, settingsToBody(s), fieldWording(inLang, acmeTextIn(inLang), FIELDS));
