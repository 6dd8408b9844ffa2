/** The devices' list follows the background polls; a device's rules are read from it while its page shows. */
import { wanjiRoutes, type ModuleKey } from '@lucky/contracts';
import { queryOptions } from '@tanstack/react-query';
import { call } from '../../api';
import { ruleQueries } from '../../kit/rule-list/ruleQueries';

export const wanjiQueries = ruleQueries('wanji', wanjiRoutes, { listMs: 5000, logMs: 5000 });

/** One module's rules of a device, asked of the device through this daemon. */
export const remoteRulesQuery = (key: string, module: ModuleKey) =>
  queryOptions({
    queryKey: ['wanji', 'remote', key, module] as const,
    queryFn: ({ signal }) => call(wanjiRoutes.remoteRules, { params: { key }, query: { module } }, { silent: true, signal }),
    refetchInterval: 15_000,
    retry: false,
  });
