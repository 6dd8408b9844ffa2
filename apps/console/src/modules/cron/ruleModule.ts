import { cronRoutes } from '@lucky/contracts';
import { ruleModule, ruleTestIds } from '../../kit/rule-list/ruleModule';
import { cronText } from './i18n';
import { cronQueries } from './queries';

export const cronRules = ruleModule('cron', cronRoutes, { queries: cronQueries, text: cronText, testIds: ruleTestIds('cron'), layout: { minWidth: 980, form: 'xl', log: 'lg' } });
