/** The switch and the delete every rule screen has: same calls, same refresh, same notice. */
import type { RouteDef, wolRoutes } from '@lucky/contracts';
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useState } from 'react';
import { call } from '../api';
import { pushNotice } from '../api/notices';

// Every module's enable/remove routes have these shapes (contracts' ruleRoutes); only path and names differ.
type Uniform<D> = Omit<D, 'path' | 'module' | 'summary'> & RouteDef;
type EnableDef = Uniform<typeof wolRoutes.enable>;
type RemoveDef = Uniform<typeof wolRoutes.remove>;

export function useRuleActions<Row extends { key: string }>(opts: {
  routes: { enable: EnableDef; remove: RemoveDef };
  /** Invalidated after a switch; after a delete too unless `afterDelete` is given. */
  listKey: QueryKey;
  afterDelete?: QueryKey;
  deletedText: string;
}) {
  const queryClient = useQueryClient();
  const [deleting, setDeleting] = useState<Row | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: opts.listKey });
  const toggle = useMutation({
    mutationFn: ({ key, enable }: { key: string; enable: boolean }) => call(opts.routes.enable, { params: { key }, body: { enable } }),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (key: string) => call(opts.routes.remove, { params: { key } }),
    onSuccess: async () => {
      pushNotice(opts.deletedText, 'green');
      await queryClient.invalidateQueries({ queryKey: opts.afterDelete ?? opts.listKey });
    },
    onSettled: () => setDeleting(null),
  });
  return { toggle, remove, deleting, setDeleting, refresh };
}
