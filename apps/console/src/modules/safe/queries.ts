/** The security screen's queryOptions factories; its sections use these, never fetch. */
import { safeRoutes } from '@lucky/contracts';
import { infiniteQueryOptions } from '@tanstack/react-query';
import { call } from '../../api';
import { routeQuery } from '../../api/routeQuery';

export const AUDIT_PAGE = 50;

// These retry as TanStack does by default: a failure shows after the tries.
export const safeOverviewQuery = () => routeQuery(['safe', 'overview'], safeRoutes.overview, { retry: true });
export const lockoutsQuery = () => routeQuery(['safe', 'lockouts'], safeRoutes.lockouts, { retry: true });
export const tokensQuery = () => routeQuery(['safe', 'tokens'], safeRoutes.tokens, { retry: true });
export const sessionsQuery = () => routeQuery(['safe', 'sessions'], safeRoutes.sessions, { retry: true });
export const oidcQuery = () => routeQuery(['safe', 'oidc'], safeRoutes.getOidc, { retry: true });

/** Newest first, AUDIT_PAGE at a time; the next page starts below the last id seen. */
export const auditQuery = () =>
  infiniteQueryOptions({
    queryKey: ['safe', 'audit'],
    queryFn: ({ signal, pageParam }) => call(safeRoutes.audit, { query: { limit: AUDIT_PAGE, before: pageParam } }, { signal }),
    initialPageParam: 0,
    getNextPageParam: (last) => (last.list.length < AUDIT_PAGE ? undefined : last.list[last.list.length - 1]!.id),
  });
