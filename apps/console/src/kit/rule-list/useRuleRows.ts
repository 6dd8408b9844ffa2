/**
 * A rule screen's data: whether its module is on (the daemon's module list), and its rules once it
 * is. Shared by the kit's table (RulePage) and screens that show their rules otherwise (cards).
 */
import { useQuery } from '@tanstack/react-query';
import { modulesQuery } from '../../api/queries';
import type { RuleModule, RuleViewOf, UniformRuleRoutes } from './ruleModule';

export function useRuleRows<R extends UniformRuleRoutes>(rules: RuleModule<R>) {
  const modules = useQuery(modulesQuery());
  const names = rules.moduleNames ?? [rules.module];
  // Until the module list is known the page is shown as on, so a module that is on does not flash a notice.
  const enabled = modules.data ? modules.data.Modules.some((m) => names.includes(m)) : true;
  const list = useQuery({ ...rules.queries.list(), enabled });
  const rows = (list.data as { list?: RuleViewOf<R>[] } | undefined)?.list ?? [];
  return { enabled, loading: list.isPending, rows };
}
