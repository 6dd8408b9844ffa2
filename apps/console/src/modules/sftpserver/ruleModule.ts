import { sftpserverRoutes } from '@lucky/contracts';
import { ruleModule, ruleTestIds } from '../../kit/rule-list/ruleModule';
import { sftpText } from './i18n';
import { sftpQueries } from './queries';

export const sftpRules = ruleModule('sftpserver', sftpserverRoutes, { queries: sftpQueries, text: sftpText, testIds: ruleTestIds('sftp'), layout: { minWidth: 1200, form: 720, log: 1300, settings: 560 } });
