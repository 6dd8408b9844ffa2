import { portforwardRoutes } from '@lucky/contracts';
import { ruleTestIds, type RuleModule } from '../../kit/rule-list/ruleModule';
import { pfText } from './i18n';
import { pfQueries } from './queries';

export const pfRules: RuleModule<typeof portforwardRoutes> = {
  module: 'portforward',
  routes: portforwardRoutes,
  queries: pfQueries,
  text: pfText,
  testIds: ruleTestIds('pf', { formServerError: 'pf-server-error' }),
};
