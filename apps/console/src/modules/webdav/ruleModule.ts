import { webdavRoutes } from '@lucky/contracts';
import { ruleModule, ruleTestIds } from '../../kit/rule-list/ruleModule';
import { webdavText } from './i18n';
import { webdavQueries } from './queries';

export const webdavRules = ruleModule('webdav', webdavRoutes, { queries: webdavQueries, text: webdavText, testIds: ruleTestIds('webdav'), layout: { minWidth: 1200, form: 760, log: 1300, settings: 560 } });
