/** The login page's own texts (zh_CN default, en_US); looked up with `loginText`. */
import type { Lang } from '@lucky/contracts';
import { bindTexts, lang } from '../../i18n';
import { en_US } from './i18n.en_US';
import { zh_CN } from './i18n.zh_CN';

export type LoginTextId = keyof typeof zh_CN;

/** The lookup in a given language (tests check both). */
export const loginTextIn = (inLang: Lang) => bindTexts<LoginTextId>({ zh_CN, en_US }, inLang);
export const loginText = loginTextIn(lang);
