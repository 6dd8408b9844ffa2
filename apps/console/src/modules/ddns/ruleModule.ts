import { ddnsRoutes } from '@lucky/contracts';
import { ruleModule, ruleTestIds } from '../../kit/rule-list/ruleModule';
import { ddnsText } from './i18n';
import { ddnsQueries } from './queries';

export const ddnsRules = ruleModule('ddns', ddnsRoutes, { queries: ddnsQueries, text: ddnsText, testIds: ruleTestIds('ddns') });
