/** The switch and the delete every rule screen has: same calls, same refresh, same notice. */
import type { RouteDef, wolRoutes } from '@lucky/contracts';
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, call } from '../api';
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

// Bodies are each module's own schema.
type CreateDef = Omit<Uniform<typeof wolRoutes.create>, 'body'>;
type UpdateDef = Omit<Uniform<typeof wolRoutes.update>, 'body'>;

/**
 * Saving a rule form: create or update, then a notice, close, refresh. A refused save shows the
 * daemon's message in the form (`onError`), not twice as a notice too.
 */
export function useRuleSave<Body>(opts: {
  routes: { create: CreateDef; update: UpdateDef };
  /** The rule being edited, null for a new one. */
  ruleKey: string | null;
  invalidate: QueryKey;
  savedText: string;
  onSaved: () => void;
  onError: (message: string) => void;
}) {
  const queryClient = useQueryClient();
  return useMutation({
    // The body's type is each module's own; the routes are checked by the shape above.
    mutationFn: (body: Body) =>
      opts.ruleKey
        ? call(opts.routes.update, { params: { key: opts.ruleKey }, body } as never, { silent: true })
        : call(opts.routes.create, { body } as never, { silent: true }),
    onSuccess: async () => {
      pushNotice(opts.savedText, 'green');
      opts.onSaved();
      await queryClient.invalidateQueries({ queryKey: opts.invalidate });
    },
    onError: (e) => opts.onError(e instanceof ApiError ? e.message : String(e)),
  });
}
