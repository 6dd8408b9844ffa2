import { wolRoutes } from '@lucky/contracts';
import { ruleTestIds, type RuleModule } from '../../kit/rule-list/ruleModule';
import { wolText } from './i18n';
import { wolQueries } from './queries';

export const wolRules: RuleModule<typeof wolRoutes> = {
  module: 'wol',
  routes: wolRoutes,
  queries: wolQueries,
  text: wolText,
  testIds: ruleTestIds('wol', { logOpen: 'wol-logs' }),
};
