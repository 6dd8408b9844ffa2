import { storageRoutes } from '@lucky/contracts';
import { ruleModule, ruleTestIds } from '../../kit/rule-list/ruleModule';
import { storageText } from './i18n';
import { storageQueries } from './queries';

/**
 * The daemon's module list names this module `storagemanagement` (spec section 2); a storage that
 * services use is deleted only once confirmed.
 */
export const storageRules = ruleModule('storage', storageRoutes, {
  moduleNames: ['storagemanagement', 'storage'],
  queries: storageQueries,
  text: storageText,
  testIds: ruleTestIds('storage'),
  layout: { minWidth: 1100, form: 640, log: 1100 },
  confirmDelete: true,
});
