/** The security screen's own texts (zh_CN default, en_US); looked up with `safeText`. */
import { bindTexts } from '../../i18n';
import { en_US } from './i18n.en_US';
import { zh_CN } from './i18n.zh_CN';

export type SafeTextId = keyof typeof zh_CN;

export const safeText = bindTexts({ zh_CN, en_US });
