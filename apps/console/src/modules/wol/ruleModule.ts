import { wolRoutes } from '@lucky/contracts';
import { ruleModule, ruleTestIds } from '../../kit/rule-list/ruleModule';
import { wolText } from './i18n';
import { wolQueries } from './queries';

export const wolRules = ruleModule('wol', wolRoutes, { queries: wolQueries, text: wolText, testIds: ruleTestIds('wol', { logOpen: 'wol-logs' }), layout: { minWidth: 760, form: 'lg', log: 'lg' } });
