/**
 * The SFTP server resources: the list carries live figures; the host keys are the daemon's, one
 * set for every rule (the storages a rule can mount: kit/storage/queries.ts).
 */
import { sftpserverRoutes } from '@lucky/contracts';
import { queryOptions } from '@tanstack/react-query';
import { call } from '../../api';
import { ruleQueries } from '../../kit/rule-list/ruleQueries';

export const sftpQueries = ruleQueries('sftpserver', sftpserverRoutes, { listMs: 2000, logMs: 1000 });

/**
 * GET /api/sftpserver/hostkeys. Made once and kept, so read once; while there are none yet (no rule
 * has started) asked again every few seconds, so they appear once the first rule runs. Silent: the
 * card says what went wrong, instead of a notice every few seconds.
 */
export const hostKeysQuery = () =>
  queryOptions({
    queryKey: [...sftpQueries.keys.all, 'hostkeys'] as const,
    queryFn: ({ signal }) => call(sftpserverRoutes.hostKeys, {}, { signal, silent: true }),
    staleTime: 60_000,
    refetchInterval: (q) => (q.state.data && q.state.data.keys.length > 0 ? false : 5000),
    retry: false,
  });
