import { stunRoutes } from '@lucky/contracts';
import { ruleModule, ruleTestIds } from '../../kit/rule-list/ruleModule';
import { stunText } from './i18n';
import { stunQueries } from './queries';

export const stunRules = ruleModule('stun', stunRoutes, { queries: stunQueries, text: stunText, testIds: ruleTestIds('stun'), layout: { minWidth: 1200, form: 860, log: 1300, settings: 640 } });
