/**
 * The FTP server resources: the list carries live figures; the storages a rule can mount are the
 * storage module's list, the DDNS tasks a passive address can follow are the DDNS module's.
 */
import { ddnsRoutes, ftpserverRoutes, storageRoutes } from '@lucky/contracts';
import { routeQuery } from '../../api/routeQuery';
import { ruleQueries } from '../../kit/rule-list/ruleQueries';

export const ftpQueries = ruleQueries('ftpserver', ftpserverRoutes, { listMs: 2000, logMs: 1000 });

/** GET /api/storage/rules, under the storage screen's own key: names for the mounts, choices for the form. */
export const storageChoicesQuery = () => routeQuery(['storage', 'rules'], storageRoutes.list, { staleTime: 5000 });

/** GET /api/ddns/rules: the tasks a passive address can follow (none when DDNS is off). */
export const ddnsChoicesQuery = () => routeQuery(['ddns', 'rules'], ddnsRoutes.list, { staleTime: 5000, silent: true });
