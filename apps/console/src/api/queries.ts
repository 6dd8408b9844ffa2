/** One queryOptions factory per resource; screens use these, never fetch. */
import { coreRoutes } from '@lucky/contracts';
import { routeQuery } from './routeQuery';

export const STATUS_REFRESH_MS = 2000;

export const versionQuery = () => routeQuery(['version'], coreRoutes.version, { silent: true, staleTime: 60_000 });
export const modulesQuery = () => routeQuery(['modules'], coreRoutes.modulesList, { silent: true, staleTime: 30_000 });
export const frontendControlQuery = () => routeQuery(['frontendcontrol'], coreRoutes.frontendControl, { silent: true, staleTime: 60_000 });
export const statusQuery = () => routeQuery(['status'], coreRoutes.status, { refetchInterval: STATUS_REFRESH_MS });
export const infoQuery = () => routeQuery(['info'], coreRoutes.info);
/** Read by the daemon, never by the browser; the daemon keeps it an hour, so the page asks when opened. */
export const infoFeedQuery = () => routeQuery(['infofeed'], coreRoutes.infoFeed, { silent: true });
export const baseConfigQuery = () => routeQuery(['baseconfigure'], coreRoutes.getBaseConfig, { silent: true });
