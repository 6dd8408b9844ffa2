/** The security screen's queryOptions factories; its sections use these, never fetch. */
import { safeRoutes } from '@lucky/contracts';
import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import { call } from '../../api';

export const AUDIT_PAGE = 50;

export const safeOverviewQuery = () =>
  queryOptions({
    queryKey: ['safe', 'overview'],
    queryFn: ({ signal }) => call(safeRoutes.overview, {}, { signal }),
  });

export const lockoutsQuery = () =>
  queryOptions({
    queryKey: ['safe', 'lockouts'],
    queryFn: ({ signal }) => call(safeRoutes.lockouts, {}, { signal }),
  });

export const tokensQuery = () =>
  queryOptions({
    queryKey: ['safe', 'tokens'],
    queryFn: ({ signal }) => call(safeRoutes.tokens, {}, { signal }),
  });

export const sessionsQuery = () =>
  queryOptions({
    queryKey: ['safe', 'sessions'],
    queryFn: ({ signal }) => call(safeRoutes.sessions, {}, { signal }),
  });

/** Newest first, AUDIT_PAGE at a time; the next page starts below the last id seen. */
export const auditQuery = () =>
  infiniteQueryOptions({
    queryKey: ['safe', 'audit'],
    queryFn: ({ signal, pageParam }) => call(safeRoutes.audit, { query: { limit: AUDIT_PAGE, before: pageParam } }, { signal }),
    initialPageParam: 0,
    getNextPageParam: (last) => (last.list.length < AUDIT_PAGE ? undefined : last.list[last.list.length - 1]!.id),
  });
