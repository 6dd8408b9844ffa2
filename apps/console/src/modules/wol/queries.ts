/** The Wake-on-LAN resources: devices change only when the user acts; online states are asked for while the list shows. */
import { wolRoutes } from '@lucky/contracts';
import { routeQuery } from '../../api/routeQuery';
import { ruleQueries } from '../../kit/rule-list/ruleQueries';

export const wolQueries = ruleQueries('wol', wolRoutes);
/** Polled only while the page is mounted (the daemon probes only when asked, a few at a time). */
export const wolOnlineQuery = () => routeQuery(['wol', 'online'] as const, wolRoutes.online, { silent: true, refetchInterval: 5000 });
export const wolInterfacesQuery = () => routeQuery(['wol', 'interfaces'] as const, wolRoutes.interfaces, { silent: true, staleTime: 60_000 });
