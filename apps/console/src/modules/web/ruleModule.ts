import { webRoutes } from '@lucky/contracts';
import { ruleTestIds, type RuleModule } from '../../kit/rule-list/ruleModule';
import { webText } from './i18n';
import { webQueries } from './queries';

export const webRules: RuleModule<typeof webRoutes> = {
  module: 'web',
  /** The daemon's module list names this module `reverseproxy` (spec section 2); `web` is accepted too. */
  moduleNames: ['reverseproxy', 'web'],
  routes: webRoutes,
  queries: webQueries,
  text: webText,
  testIds: ruleTestIds('web'),
};
