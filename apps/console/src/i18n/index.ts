/**
 * The console's language is fixed for the life of the page: switching saves the choice and reloads
 * (spec section 4), so texts are plain lookups with no React context.
 */
import { DEFAULT_LANG, parseLang, type Lang } from '@lucky/contracts';
import { storage } from '../storage';
import { en_US } from './en_US';
import { zh_CN, type MessageId } from './zh_CN';

export type { MessageId };
export const DICTIONARIES: Record<Lang, Record<MessageId, string>> = { zh_CN, en_US };

function initialLang(): Lang {
  const stored = storage.get('lang');
  return stored ? parseLang(stored) : DEFAULT_LANG;
}

export const lang: Lang = initialLang();

function fill(text: string, vars?: Record<string, string | number>): string {
  if (!vars) return text;
  return text.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));
}

/** The text for `id` in the page's language, `{name}` placeholders filled from `vars`. */
export function t(id: MessageId, vars?: Record<string, string | number>): string {
  return fill(DICTIONARIES[lang][id], vars);
}

/** A module screen's own pair of typed tables (modules/<m>/i18n.ts), looked up the same way. */
export interface ModuleTexts<K extends string> {
  zh_CN: Record<K, string>;
  en_US: Record<K, string>;
}
export function moduleT<K extends string>(tables: ModuleTexts<K>) {
  return (id: K, vars?: Record<string, string | number>): string => fill(tables[lang][id], vars);
}

/** Saves the choice and reloads, as the spec's language switch does. */
export function switchLang(next: Lang): void {
  storage.set('lang', next);
  window.location.reload();
}
