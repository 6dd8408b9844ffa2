/** The Wake-on-LAN resources: devices change only when the user acts; online states are asked for while the list shows. */
import { wolRoutes } from '@lucky/contracts';
import { queryOptions } from '@tanstack/react-query';
import { call } from '../../api';
import { routeQuery } from '../../api/routeQuery';
import { ruleQueries } from '../../kit/rule-list/ruleQueries';

export const wolQueries = ruleQueries('wol', wolRoutes);
/** Polled only while the page is mounted (the daemon probes only when asked, a few at a time). */
export const wolOnlineQuery = () => routeQuery(['wol', 'online'] as const, wolRoutes.online, { silent: true, refetchInterval: 5000 });
export const wolInterfacesQuery = () => routeQuery(['wol', 'interfaces'] as const, wolRoutes.interfaces, { silent: true, staleTime: 60_000 });
/** The running or last scan; asked again twice a second while it runs, not at all once it is done. */
export const wolScanQuery = () =>
  queryOptions({
    queryKey: ['wol', 'scan'] as const,
    queryFn: ({ signal }) => call(wolRoutes.scanState, {}, { silent: true, signal }),
    refetchInterval: (q) => (q.state.data?.scan?.state === 'running' ? 500 : false),
    retry: false,
  });
