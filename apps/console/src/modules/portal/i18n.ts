/** The login portal screen's own texts (zh_CN default, en_US) over the kit's common ones; looked up with `portalText`. */
import type { Lang } from '@lucky/contracts';
import { lang } from '../../i18n';
import { bindRuleTexts } from '../../kit/texts';
import { en_US } from './i18n.en_US';
import { zh_CN } from './i18n.zh_CN';

export type PortalTextId = keyof typeof zh_CN;

/** The lookup in a given language (tests check both). */
export const portalTextIn = (inLang: Lang) => bindRuleTexts({ zh_CN, en_US }, inLang);
export const portalText = portalTextIn(lang);
export type PortalText = typeof portalText;
