import { wanjiRoutes } from '@lucky/contracts';
import { ruleModule, ruleTestIds } from '../../kit/rule-list/ruleModule';
import { wanjiText } from './i18n';
import { wanjiQueries } from './queries';

export const wanjiRules = ruleModule('wanji', wanjiRoutes, {
  moduleNames: ['wanji_admin'],
  queries: wanjiQueries,
  text: wanjiText,
  testIds: ruleTestIds('wanji'),
  layout: { minWidth: 1100, form: 'lg', log: 'lg', settings: 'md' },
});
