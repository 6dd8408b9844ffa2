/** The DDNS resources: the task list follows the engine (statuses and addresses change on their own). */
import { coreRoutes, ddnsRoutes } from '@lucky/contracts';
import { queryOptions } from '@tanstack/react-query';
import { call } from '../../api';
import { routeQuery } from '../../api/routeQuery';
import { ruleQueries } from '../../kit/rule-list/ruleQueries';

export const ddnsQueries = ruleQueries('ddns', ddnsRoutes, { listMs: 3000, logMs: 2000 });

/** Providers with their credential fields, webhook and callback presets: fixed for a daemon's life. */
export const ddnsProvidersQuery = () => routeQuery(['ddns', 'providers'], ddnsRoutes.providers, { staleTime: Infinity });

/** Addresses seen, sync results and webhook calls, newest first. */
export const ddnsHistoryQuery = (key: string, limit = 100) =>
  queryOptions({
    queryKey: ['ddns', 'history', key, limit],
    queryFn: ({ signal }) => call(ddnsRoutes.history, { params: { key }, query: { limit } }, { signal }),
    refetchInterval: 4000,
    retry: false,
  });

export const netInterfacesQuery = () => routeQuery(['netinterfaces'], coreRoutes.netInterfaces, { staleTime: 30_000 });
