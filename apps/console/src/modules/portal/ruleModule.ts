import { portalRoutes } from '@lucky/contracts';
import { ruleModule, ruleTestIds } from '../../kit/rule-list/ruleModule';
import { portalText } from './i18n';
import { portalQueries } from './queries';

/** Each portal user is a rule of the module; deleting one signs them out everywhere. */
export const portalRules = ruleModule('portal', portalRoutes, { queries: portalQueries, text: portalText, testIds: ruleTestIds('portal'), layout: { form: 'lg', settings: 'md' } });
