/**
 * The FTP server resources: the list carries live figures; the DDNS tasks a passive address can
 * follow are the DDNS module's (the storages a rule can mount: kit/storage/queries.ts).
 */
import { ddnsRoutes, ftpserverRoutes } from '@lucky/contracts';
import { routeQuery } from '../../api/routeQuery';
import { ruleQueries } from '../../kit/rule-list/ruleQueries';

export const ftpQueries = ruleQueries('ftpserver', ftpserverRoutes, { listMs: 2000, logMs: 1000 });

/** GET /api/ddns/rules: the tasks a passive address can follow (none when DDNS is off). */
export const ddnsChoicesQuery = () => routeQuery(['ddns', 'rules'], ddnsRoutes.list, { staleTime: 5000, silent: true });
