import { ftpserverRoutes } from '@lucky/contracts';
import { ruleModule, ruleTestIds } from '../../kit/rule-list/ruleModule';
import { ftpText } from './i18n';
import { ftpQueries } from './queries';

export const ftpRules = ruleModule('ftpserver', ftpserverRoutes, { queries: ftpQueries, text: ftpText, testIds: ruleTestIds('ftp'), layout: { minWidth: 1200, form: 760, log: 1300, settings: 560 } });
