/** queryOptions factories for what every rule module serves: the list, its settings, a rule's log. */
import type { LogEntry, RouteInput } from '@lucky/contracts';
import { queryOptions } from '@tanstack/react-query';
import { call } from '../../api';
import { routeQuery } from '../../api/routeQuery';
import type { UniformRuleRoutes } from './ruleModule';

/** Lines kept in a rule's log view. */
export const RULE_LOG_KEEP = 2000;

/** New lines after `pre` appended to what was already shown (the daemon answers lines newer than `pre`). */
export function appendLogs(shown: readonly LogEntry[], fresh: readonly LogEntry[], keep = RULE_LOG_KEEP): LogEntry[] {
  const last = shown.at(-1)?.timestamp ?? 0;
  const add = fresh.filter((l) => l.timestamp > last);
  if (add.length === 0) return shown as LogEntry[];
  const all = [...shown, ...add];
  return all.length > keep ? all.slice(all.length - keep) : all;
}

export function ruleQueries<R extends UniformRuleRoutes>(
  module: string,
  routes: R,
  /** Lists carrying live states and figures follow the engine; logs poll while open. */
  refresh: { listMs?: number; logMs?: number } = {},
) {
  const keys = {
    all: [module] as const,
    rules: [module, 'rules'] as const,
    configure: [module, 'configure'] as const,
    logs: (key: string) => [module, 'logs', key] as const,
  };
  return {
    keys,
    list: () => routeQuery<R['list'], typeof keys.rules>(keys.rules, routes.list, refresh.listMs ? { refetchInterval: refresh.listMs } : {}),
    configure: () => routeQuery<R['getConfigure'], typeof keys.configure>(keys.configure, routes.getConfigure),
    /** Polled with `pre` = the newest line already held, so each poll carries only new lines. */
    logs: (key: string) =>
      queryOptions<LogEntry[], Error, LogEntry[], ReturnType<typeof keys.logs>>({
        queryKey: keys.logs(key),
        queryFn: async ({ signal, client, queryKey }) => {
          const shown = client.getQueryData<LogEntry[]>(queryKey) ?? [];
          const pre = shown.at(-1)?.timestamp ?? 0;
          const r = await call(routes.logs, { params: { key }, query: { pre } } as unknown as RouteInput<R['logs']>, { signal });
          return appendLogs(shown, (r as { logs: LogEntry[] }).logs);
        },
        refetchInterval: refresh.logMs ?? false,
        gcTime: 0,
        retry: false,
      }),
  };
}

export type RuleQueries<R extends UniformRuleRoutes> = ReturnType<typeof ruleQueries<R>>;
