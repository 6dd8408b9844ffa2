/** queryOptions factories for the DDNS resources; the screens use these, never fetch. */
import { coreRoutes, ddnsRoutes } from '@lucky/contracts';
import { queryOptions } from '@tanstack/react-query';
import { call } from '../../api';

/** The task list follows the engine: statuses and addresses change without the user doing anything. */
export const DDNS_LIST_REFRESH_MS = 3000;
export const DDNS_LOG_REFRESH_MS = 2000;

export const ddnsKeys = {
  all: ['ddns'] as const,
  tasks: ['ddns', 'rules'] as const,
  configure: ['ddns', 'configure'] as const,
  providers: ['ddns', 'providers'] as const,
  logs: (key: string) => ['ddns', 'logs', key] as const,
  history: (key: string) => ['ddns', 'history', key] as const,
};

export const ddnsTasksQuery = () =>
  queryOptions({
    queryKey: ddnsKeys.tasks,
    queryFn: ({ signal }) => call(ddnsRoutes.list, {}, { signal }),
    refetchInterval: DDNS_LIST_REFRESH_MS,
    retry: false,
  });

export const ddnsConfigureQuery = () =>
  queryOptions({
    queryKey: ddnsKeys.configure,
    queryFn: ({ signal }) => call(ddnsRoutes.getConfigure, {}, { signal }),
    retry: false,
  });

/** Providers with their credential fields, webhook and callback presets: fixed for a daemon's life. */
export const ddnsProvidersQuery = () =>
  queryOptions({
    queryKey: ddnsKeys.providers,
    queryFn: ({ signal }) => call(ddnsRoutes.providers, {}, { signal }),
    staleTime: Infinity,
    retry: false,
  });

export const ddnsLogsQuery = (key: string) =>
  queryOptions({
    queryKey: ddnsKeys.logs(key),
    queryFn: ({ signal }) => call(ddnsRoutes.logs, { params: { key }, query: { pre: 0 } }, { signal }),
    refetchInterval: DDNS_LOG_REFRESH_MS,
    retry: false,
  });

export const ddnsHistoryQuery = (key: string, limit = 100) =>
  queryOptions({
    queryKey: [...ddnsKeys.history(key), limit],
    queryFn: ({ signal }) => call(ddnsRoutes.history, { params: { key }, query: { limit } }, { signal }),
    refetchInterval: DDNS_LOG_REFRESH_MS * 2,
    retry: false,
  });

export const netInterfacesQuery = () =>
  queryOptions({
    queryKey: ['netinterfaces'],
    queryFn: ({ signal }) => call(coreRoutes.netInterfaces, {}, { signal }),
    staleTime: 30_000,
    retry: false,
  });
