import { portforwardRoutes } from '@lucky/contracts';
import { ruleModule, ruleTestIds } from '../../kit/rule-list/ruleModule';
import { pfText } from './i18n';
import { pfQueries } from './queries';

export const pfRules = ruleModule('portforward', portforwardRoutes, { queries: pfQueries, text: pfText, testIds: ruleTestIds('pf', { formServerError: 'pf-server-error' }), layout: { minWidth: 1100, form: 860, log: 1300, settings: 640 } });
