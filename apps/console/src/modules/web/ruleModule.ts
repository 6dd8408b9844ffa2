import { webRoutes } from '@lucky/contracts';
import { ruleModule, ruleTestIds } from '../../kit/rule-list/ruleModule';
import { webText } from './i18n';
import { webQueries } from './queries';

/** The daemon's module list names this module `reverseproxy` (spec section 2); `web` is accepted too. */
export const webRules = ruleModule('web', webRoutes, {
  moduleNames: ['reverseproxy', 'web'],
  queries: webQueries,
  text: webText,
  testIds: ruleTestIds('web'),
  layout: { minWidth: 1000, form: 1000, log: 1300, settings: 'md' },
});
