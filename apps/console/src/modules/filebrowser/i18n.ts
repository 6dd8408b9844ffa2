/** The file browser's texts (zh_CN default, en_US); looked up with `fbText`. */
import type { Lang } from '@lucky/contracts';
import { bindTexts, lang } from '../../i18n';
import { en_US } from './i18n.en_US';
import { zh_CN } from './i18n.zh_CN';

export type FbTextId = keyof typeof zh_CN;

export const fbTextIn = (inLang: Lang) => bindTexts<FbTextId>({ zh_CN, en_US }, inLang);
export const fbText = fbTextIn(lang);
