import { ddnsRoutes } from '@lucky/contracts';
import { ruleTestIds, type RuleModule } from '../../kit/rule-list/ruleModule';
import { ddnsText } from './i18n';
import { ddnsQueries } from './queries';

export const ddnsRules: RuleModule<typeof ddnsRoutes> = {
  module: 'ddns',
  routes: ddnsRoutes,
  queries: ddnsQueries,
  text: ddnsText,
  testIds: ruleTestIds('ddns'),
};
