/**
 * Messages the daemon sends back, and the zod message keys schemas use, in both languages.
 * The console reuses them so that a message reads the same wherever it is produced.
 */
import { z } from 'zod';
import { MESSAGES, message, type Lang, type MessageKey } from './messages.js';

export * from './messages.js';

/**
 * A zod error that should be shown through the message table: schemas write `{ error: msgKey('cannotBeEmpty') }`
 * and `formatIssues` translates it.
 */
const KEY_PREFIX = '@msg:';
export function msgKey(key: MessageKey): string {
  return KEY_PREFIX + key;
}

/** One line that names the first failing field, in the caller's language. */
export function formatIssues(schema: z.ZodType, input: unknown, lang: Lang): string {
  const localeError = lang === 'en_US' ? z.locales.en().localeError : z.locales.zhCN().localeError;
  const r = schema.safeParse(input, { error: localeError });
  if (r.success) return message(lang, 'validationRoot', { detail: '?' });
  const issue = r.error.issues[0];
  if (!issue) return message(lang, 'validationRoot', { detail: '?' });
  let detail = issue.message;
  if (detail.startsWith(KEY_PREFIX)) detail = MESSAGES[lang][detail.slice(KEY_PREFIX.length) as MessageKey] ?? detail;
  const field = issue.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
  return field ? message(lang, 'validation', { field, detail }) : message(lang, 'validationRoot', { detail });
}
