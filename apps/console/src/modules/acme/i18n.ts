/** The certificates screen's own texts (zh_CN default, en_US) over the kit's common ones; looked up with `acmeText`. */
import type { Lang } from '@lucky/contracts';
import { lang } from '../../i18n';
import { bindRuleTexts } from '../../kit/texts';
import { en_US } from './i18n.en_US';
import { zh_CN } from './i18n.zh_CN';

export type AcmeTextId = keyof typeof zh_CN;

export const acmeTextIn = (inLang: Lang) => bindRuleTexts({ zh_CN, en_US }, inLang);
export const acmeText = acmeTextIn(lang);

/** A choice's options, each labelled by its `<prefix>.<value>` text (`ca.letsencrypt`). */
export const acmeChoices = <K extends string>(prefix: string, values: readonly K[]) => values.map((value) => ({ value, label: acmeText(`${prefix}.${value}` as AcmeTextId) }));
