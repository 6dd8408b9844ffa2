/**
 * Texts every rule screen shows the same way (buttons, columns, states, validation wording). A
 * module's table comes first: it words a common text its own way by having the same key.
 */
import { bindTexts, fillVars, lang, type TextTables, type TextVars } from '../i18n';
import { en_US } from './texts.en_US';
import { zh_CN } from './texts.zh_CN';

export type KitTextId = keyof typeof zh_CN;

const KIT_TABLES: TextTables<KitTextId> = { zh_CN, en_US };

/** What each rule module must word itself: its names for the page, the rule and its log. */
export type RuleTextId = 'title' | 'add' | 'edit' | 'empty' | 'deleteTitle' | 'deleteConfirm' | 'logTitle' | 'noLogs';

/** A rule module's lookup: its own texts and the kit's common ones. */
export type RuleTexts = (id: RuleTextId | KitTextId, vars?: TextVars) => string;

/** Binds a rule module's pair of tables over the kit's common texts (`inLang` for tests). */
export function bindRuleTexts<K extends string>(tables: TextTables<K>, inLang = lang) {
  const own: Record<string, string> = tables[inLang];
  return (id: K | KitTextId, vars?: TextVars): string => fillVars(own[id] ?? KIT_TABLES[inLang][id as KitTextId], vars);
}

/** The common texts alone, for parts no module words differently. */
export const kitText = bindTexts(KIT_TABLES);
