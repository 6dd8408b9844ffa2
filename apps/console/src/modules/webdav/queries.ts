/** The WebDAV resources: the list carries live figures; the storages a rule can mount are the storage module's list. */
import { storageRoutes, webdavRoutes } from '@lucky/contracts';
import { routeQuery } from '../../api/routeQuery';
import { ruleQueries } from '../../kit/rule-list/ruleQueries';

export const webdavQueries = ruleQueries('webdav', webdavRoutes, { listMs: 2000, logMs: 1000 });

/** GET /api/storage/rules, under the storage screen's own key: names for the mounts, choices for the form. */
export const storageChoicesQuery = () => routeQuery(['storage', 'rules'], storageRoutes.list, { staleTime: 5000 });
