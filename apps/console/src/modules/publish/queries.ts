/**
 * The Publish resources: the list carries each service's checks, which the daemon looks at again
 * every few seconds (the module's check interval), so it is asked again while shown; the DDNS tasks
 * are read to choose the one whose provider account holds the zone.
 */
import { ddnsRoutes, publishRoutes } from '@lucky/contracts';
import { routeQuery } from '../../api/routeQuery';
import { ruleQueries } from '../../kit/rule-list/ruleQueries';

export const publishQueries = ruleQueries('publish', publishRoutes, { listMs: 3000, logMs: 2000 });

/** The DDNS module's own list key: a task added there shows here at once, and the reverse. */
export const ddnsTasksQuery = () => routeQuery(['ddns', 'rules'] as const, ddnsRoutes.list, { silent: true, staleTime: 10_000 });
