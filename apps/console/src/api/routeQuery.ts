/** A query of a route that takes no input: its key, the call, and how it refreshes. */
import type { RouteDef, RouteInput, RouteResponse } from '@lucky/contracts';
import { queryOptions } from '@tanstack/react-query';
import { call } from './index';

export interface RouteQueryOptions {
  /** Failures are not shown to the user. */
  silent?: boolean;
  staleTime?: number;
  refetchInterval?: number;
  /** Tried again after a failure (TanStack's default); most screens show the failure at once. */
  retry?: boolean;
}

export function routeQuery<D extends RouteDef, K extends readonly unknown[]>(queryKey: K, def: D, opts: RouteQueryOptions = {}) {
  return queryOptions<RouteResponse<D>, Error, RouteResponse<D>, K>({
    queryKey,
    queryFn: ({ signal }) => call<D>(def, {} as RouteInput<D>, { silent: opts.silent ?? false, signal }),
    ...(opts.staleTime !== undefined ? { staleTime: opts.staleTime } : {}),
    ...(opts.refetchInterval !== undefined ? { refetchInterval: opts.refetchInterval } : {}),
    ...(opts.retry ? {} : { retry: false }),
  });
}
