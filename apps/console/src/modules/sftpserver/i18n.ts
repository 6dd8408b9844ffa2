/** The SFTP server screen's own texts (zh_CN default, en_US) over the kit's common ones; looked up with `sftpText`. */
import type { Lang } from '@lucky/contracts';
import { lang } from '../../i18n';
import { bindRuleTexts } from '../../kit/texts';
import { en_US } from './i18n.en_US';
import { zh_CN } from './i18n.zh_CN';

export type SftpTextId = keyof typeof zh_CN;

/** The lookup in a given language (tests check both). */
export const sftpTextIn = (inLang: Lang) => bindRuleTexts({ zh_CN, en_US }, inLang);
export const sftpText = sftpTextIn(lang);
export type SftpText = typeof sftpText;
