/** The Publish screen's own texts (zh_CN default, en_US) over the kit's common ones; looked up with `publishText`. */
import type { Lang } from '@lucky/contracts';
import { lang } from '../../i18n';
import { bindRuleTexts } from '../../kit/texts';
import { en_US } from './i18n.en_US';
import { zh_CN } from './i18n.zh_CN';

export type PublishTextId = keyof typeof zh_CN;

/** The lookup in a given language (tests check both). */
export const publishTextIn = (inLang: Lang) => bindRuleTexts({ zh_CN, en_US }, inLang);
export const publishText = publishTextIn(lang);
export type PublishText = typeof publishText;
