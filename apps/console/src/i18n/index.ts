/**
 * The console's language is fixed for the life of the page: switching saves the choice and reloads
 * (spec section 4), so texts are plain lookups with no React context.
 */
import { DEFAULT_LANG, parseLang, type Lang } from '@lucky/contracts';
import { storage } from '../storage';
import { en_US } from './en_US';
import { zh_CN, type MessageId } from './zh_CN';

export type { MessageId };

/** A pair of text tables with the same keys: the shell's, the kit's, or a module's (modules/<m>/i18n.ts). */
export interface TextTables<K extends string> {
  zh_CN: Record<K, string>;
  en_US: Record<K, string>;
}

export type TextVars = Record<string, string | number>;

export const SHELL_TABLES: TextTables<MessageId> = { zh_CN, en_US };

function initialLang(): Lang {
  const stored = storage.get('lang');
  return stored ? parseLang(stored) : DEFAULT_LANG;
}

export const lang: Lang = initialLang();

/** `{name}` placeholders of `text` filled from `vars`; unknown names stay as they are. */
export function fillVars(text: string, vars?: TextVars): string {
  if (!vars) return text;
  return text.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));
}

/** A lookup over one pair of tables, in the page's language unless `inLang` says otherwise (tests). */
export function bindTexts<K extends string>(tables: TextTables<K>, inLang: Lang = lang) {
  return (id: K, vars?: TextVars): string => fillVars(tables[inLang][id], vars);
}

/** The shell's own texts (menus, login, settings, status...). */
export const shellText = bindTexts(SHELL_TABLES);

/** Saves the choice and reloads, as the spec's language switch does. */
export function switchLang(next: Lang): void {
  storage.set('lang', next);
  window.location.reload();
}
