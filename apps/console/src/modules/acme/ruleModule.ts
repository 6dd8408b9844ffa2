import { acmeRoutes } from '@lucky/contracts';
import { ruleModule, ruleTestIds } from '../../kit/rule-list/ruleModule';
import { acmeText } from './i18n';
import { acmeQueries } from './queries';

export const acmeRules = ruleModule('acme', acmeRoutes, { queries: acmeQueries, text: acmeText, testIds: ruleTestIds('acme', { logOpen: 'acme-logs' }), layout: { minWidth: 820, form: 'lg', log: 'lg' } });
