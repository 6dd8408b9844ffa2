/**
 * The login portal resources: the users (their session counts change as people sign in), the live
 * sessions (asked again every 10 s while shown), and the web rules a user may be allowed on.
 */
import { portalRoutes, webRoutes } from '@lucky/contracts';
import { routeQuery } from '../../api/routeQuery';
import { ruleQueries } from '../../kit/rule-list/ruleQueries';
import { webQueries } from '../web/queries';

export const SESSIONS_REFRESH_MS = 10_000;

export const portalQueries = ruleQueries('portal', portalRoutes, { listMs: SESSIONS_REFRESH_MS, logMs: 2000 });

export const portalSessionsQuery = () => routeQuery([...portalQueries.keys.all, 'sessions'] as const, portalRoutes.sessions, { refetchInterval: SESSIONS_REFRESH_MS });

/**
 * The web module's own list key: a rule added there is offered here at once. Silent and not polled:
 * with the web module off a user simply has no rule to pick, and names change seldom.
 */
export const webRulesQuery = () => routeQuery(webQueries.keys.rules, webRoutes.list, { silent: true, staleTime: 10_000 });

/** The users, for a web rule's Lucky login to say when nobody could sign in yet; silent with the portal module off. */
export const portalUsersQuery = () => routeQuery(portalQueries.keys.rules, portalRoutes.list, { silent: true, staleTime: 10_000 });
