/** The WebDAV resources: the list carries live figures (the storages a rule can mount: kit/storage/queries.ts). */
import { webdavRoutes } from '@lucky/contracts';
import { ruleQueries } from '../../kit/rule-list/ruleQueries';

export const webdavQueries = ruleQueries('webdav', webdavRoutes, { listMs: 2000, logMs: 1000 });
