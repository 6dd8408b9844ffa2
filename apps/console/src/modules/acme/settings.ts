/** The module settings form: numbers as typed, the webhook's headers as lines; checked with the contracts' schema. */
import { ZAcmeConfigure, type AcmeConfigure, type Lang, type Webhook } from '@lucky/contracts';
import { lang } from '../../i18n';
import { fieldWording, schemaProblems } from '../../kit/form/problems';
import { toNumber, type Num } from '../../kit/form/values';
import { webhookToBody, webhookToForm, type WebhookFormOf } from '../../kit/webhook/request';
import { acmeTextIn } from './i18n';

export type SettingsForm = Omit<AcmeConfigure, 'checkHours' | 'warnDays' | 'webhook'> & { checkHours: Num; warnDays: Num; webhook: WebhookFormOf<Webhook> };

export const settingsToForm = (c: AcmeConfigure): SettingsForm => ({ ...c, webhookEvents: [...c.webhookEvents], webhook: webhookToForm(c.webhook) });

/** The whole settings object: PUT replaces it. */
export const settingsToBody = (s: SettingsForm): AcmeConfigure => ({
  checkHours: toNumber(s.checkHours),
  warnDays: toNumber(s.warnDays),
  webhook: webhookToBody<Webhook>(s.webhook),
  webhookEvents: s.webhookEvents,
});

const FIELDS = ['checkHours', 'warnDays', 'webhookEvents'] as const;

export const checkSettings = (s: SettingsForm, inLang: Lang = lang) =>
  schemaProblems(ZAcmeConfigure, settingsToBody(s), fieldWording(inLang, acmeTextIn(inLang), FIELDS));
