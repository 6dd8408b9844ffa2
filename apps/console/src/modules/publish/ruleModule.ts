import { publishRoutes } from '@lucky/contracts';
import { ruleModule, ruleTestIds } from '../../kit/rule-list/ruleModule';
import { publishText } from './i18n';
import { publishQueries } from './queries';

export const publishRules = ruleModule('publish', publishRoutes, { queries: publishQueries, text: publishText, testIds: ruleTestIds('publish'), layout: { form: 'lg', settings: 'md' } });
