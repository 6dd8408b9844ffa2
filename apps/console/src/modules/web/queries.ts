/** The web service resources: the list carries live figures (requests, bytes, connections, codes) and engine states. */
import { webRoutes } from '@lucky/contracts';
import { queryOptions } from '@tanstack/react-query';
import { call } from '../../api';
import { ruleQueries } from '../../kit/rule-list/ruleQueries';

export const webQueries = ruleQueries('web', webRoutes, { listMs: 2000, logMs: 2000 });

/** A rule's latest `limit` requests, newest last. */
export const webAccessLogQuery = (key: string, limit: number) =>
  queryOptions({
    queryKey: ['web', 'accesslog', key, limit],
    queryFn: ({ signal }) => call(webRoutes.accessLog, { params: { key }, query: { limit } }, { signal }),
    refetchInterval: 2000,
    retry: false,
  });
