/** queryOptions factories for the web service resources; the screens use these, never fetch. */
import { webRoutes } from '@lucky/contracts';
import { queryOptions } from '@tanstack/react-query';
import { call } from '../../api';

/** The list carries live figures (requests, bytes, connections, codes) and engine states. */
export const WEB_LIST_REFRESH_MS = 2000;
export const WEB_LOG_REFRESH_MS = 2000;

export const webKeys = {
  all: ['web'] as const,
  rules: ['web', 'rules'] as const,
  configure: ['web', 'configure'] as const,
  logs: (key: string) => ['web', 'logs', key] as const,
  accessLog: (key: string, limit: number) => ['web', 'accesslog', key, limit] as const,
};

export const webRulesQuery = () =>
  queryOptions({
    queryKey: webKeys.rules,
    queryFn: ({ signal }) => call(webRoutes.list, {}, { signal }),
    refetchInterval: WEB_LIST_REFRESH_MS,
    retry: false,
  });

export const webConfigureQuery = () =>
  queryOptions({
    queryKey: webKeys.configure,
    queryFn: ({ signal }) => call(webRoutes.getConfigure, {}, { signal }),
    retry: false,
  });

export const webLogsQuery = (key: string) =>
  queryOptions({
    queryKey: webKeys.logs(key),
    queryFn: ({ signal }) => call(webRoutes.logs, { params: { key }, query: { pre: 0 } }, { signal }),
    refetchInterval: WEB_LOG_REFRESH_MS,
    retry: false,
  });

export const webAccessLogQuery = (key: string, limit: number) =>
  queryOptions({
    queryKey: webKeys.accessLog(key, limit),
    queryFn: ({ signal }) => call(webRoutes.accessLog, { params: { key }, query: { limit } }, { signal }),
    refetchInterval: WEB_LOG_REFRESH_MS,
    retry: false,
  });
