/** The certificates resources: rules change only when the user acts; DDNS tasks are read to choose one for DNS-01. */
import { acmeRoutes, ddnsRoutes } from '@lucky/contracts';
import { routeQuery } from '../../api/routeQuery';
import { ruleQueries } from '../../kit/rule-list/ruleQueries';

export const acmeQueries = ruleQueries('acme', acmeRoutes);
export const ddnsTasksQuery = () => routeQuery(['acme', 'ddnsTasks'] as const, ddnsRoutes.list, { silent: true, staleTime: 30_000 });
