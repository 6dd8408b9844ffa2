/** One queryOptions factory per resource; screens use these, never fetch. */
import { coreRoutes } from '@lucky/contracts';
import { queryOptions } from '@tanstack/react-query';
import { call } from './index';

export const STATUS_REFRESH_MS = 2000;

export const versionQuery = () =>
  queryOptions({
    queryKey: ['version'],
    queryFn: ({ signal }) => call(coreRoutes.version, {}, { silent: true, signal }),
    staleTime: 60_000,
    retry: false,
  });

export const modulesQuery = () =>
  queryOptions({
    queryKey: ['modules'],
    queryFn: ({ signal }) => call(coreRoutes.modulesList, {}, { silent: true, signal }),
    staleTime: 30_000,
    retry: false,
  });

export const frontendControlQuery = () =>
  queryOptions({
    queryKey: ['frontendcontrol'],
    queryFn: ({ signal }) => call(coreRoutes.frontendControl, {}, { silent: true, signal }),
    staleTime: 60_000,
    retry: false,
  });

export const statusQuery = () =>
  queryOptions({
    queryKey: ['status'],
    queryFn: ({ signal }) => call(coreRoutes.status, {}, { signal }),
    refetchInterval: STATUS_REFRESH_MS,
    retry: false,
  });

export const infoQuery = () =>
  queryOptions({
    queryKey: ['info'],
    queryFn: ({ signal }) => call(coreRoutes.info, {}, { signal }),
    retry: false,
  });

export const baseConfigQuery = () =>
  queryOptions({
    queryKey: ['baseconfigure'],
    queryFn: ({ signal }) => call(coreRoutes.getBaseConfig, {}, { silent: true, signal }),
    retry: false,
  });

