/** queryOptions factories for the port forwarding resources; the screens use these, never fetch. */
import { portforwardRoutes, type LogEntry } from '@lucky/contracts';
import { queryOptions } from '@tanstack/react-query';
import { call } from '../../api';

/** The list carries live figures (connections, sessions, bytes) and engine states. */
export const PF_LIST_REFRESH_MS = 2000;
export const PF_LOG_REFRESH_MS = 1000;
/** Lines kept in the log view. */
export const PF_LOG_KEEP = 2000;

export const pfKeys = {
  all: ['portforward'] as const,
  rules: ['portforward', 'rules'] as const,
  configure: ['portforward', 'configure'] as const,
  logs: (key: string) => ['portforward', 'logs', key] as const,
};

export const pfRulesQuery = () =>
  queryOptions({
    queryKey: pfKeys.rules,
    queryFn: ({ signal }) => call(portforwardRoutes.list, {}, { signal }),
    refetchInterval: PF_LIST_REFRESH_MS,
    retry: false,
  });

export const pfConfigureQuery = () =>
  queryOptions({
    queryKey: pfKeys.configure,
    queryFn: ({ signal }) => call(portforwardRoutes.getConfigure, {}, { signal }),
    retry: false,
  });

/** New lines after `pre` appended to what was already shown (the daemon answers lines newer than `pre`). */
export function appendLogs(shown: readonly LogEntry[], fresh: readonly LogEntry[], keep = PF_LOG_KEEP): LogEntry[] {
  const last = shown.at(-1)?.timestamp ?? 0;
  const add = fresh.filter((l) => l.timestamp > last);
  if (add.length === 0) return shown as LogEntry[];
  const all = [...shown, ...add];
  return all.length > keep ? all.slice(all.length - keep) : all;
}

/** A rule's log, polled with `pre` = the newest line already held, so each poll carries only new lines. */
export const pfLogsQuery = (key: string) =>
  queryOptions({
    queryKey: pfKeys.logs(key),
    queryFn: async ({ signal, client, queryKey }) => {
      const shown = client.getQueryData<LogEntry[]>(queryKey) ?? [];
      const pre = shown.at(-1)?.timestamp ?? 0;
      const r = await call(portforwardRoutes.logs, { params: { key }, query: { pre } }, { signal });
      return appendLogs(shown, r.logs);
    },
    refetchInterval: PF_LOG_REFRESH_MS,
    gcTime: 0,
    retry: false,
  });
