/**
 * The switch and the delete every rule list has: same calls, same refresh, same notice. A module
 * whose daemon may refuse a delete until confirmed (`confirmDelete`: a storage that services still
 * use) gets that refusal back as `asking`; deleting again with `confirm` sends `?confirm=1`.
 */
import { Ret, type RouteInput } from '@lucky/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, call } from '../../api';
import { pushNotice } from '../../api/notices';
import type { RuleModule, RuleViewOf, UniformRuleRoutes } from './ruleModule';

/** A delete the daemon wants confirmed: the rule and the daemon's words. */
export interface AskedDelete {
  key: string;
  name: string;
  message: string;
}

/** Refusals that no confirmation changes. */
const FINAL_REFUSALS: readonly number[] = [Ret.sessionInvalid, Ret.denied, Ret.notFound, Ret.moduleDisabled];

/** The delete call: `confirm` only after the user confirmed what the daemon asked. */
export function deleteRule<R extends UniformRuleRoutes>(rules: RuleModule<R>, key: string, opts: { confirm?: boolean; silent?: boolean } = {}) {
  const input = { params: { key }, ...(opts.confirm ? { query: { confirm: 1 } } : {}) };
  return call(rules.routes.remove, input as unknown as RouteInput<R['remove']>, { silent: opts.silent ?? false });
}

export function useRuleActions<R extends UniformRuleRoutes>(rules: RuleModule<R>) {
  const queryClient = useQueryClient();
  const [deleting, setDeleting] = useState<RuleViewOf<R> | null>(null);
  const [asking, setAsking] = useState<AskedDelete | null>(null);
  const { keys } = rules.queries;
  const toggle = useMutation({
    mutationFn: ({ key, enable }: { key: string; enable: boolean }) =>
      call(rules.routes.enable, { params: { key }, body: { enable } } as unknown as RouteInput<R['enable']>),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.rules }),
  });
  const remove = useMutation({
    mutationFn: ({ key, confirm }: { key: string; name: string; confirm?: boolean }) =>
      // The first try of a confirmable delete is silent: its refusal becomes the question.
      deleteRule(rules, key, { confirm: confirm ?? false, silent: rules.confirmDelete === true && !confirm }),
    onSuccess: async () => {
      pushNotice(rules.text('deleted'), 'green');
      await queryClient.invalidateQueries({ queryKey: keys.rules });
    },
    onError: (e, { key, name, confirm }) => {
      if (!rules.confirmDelete || confirm) return;
      if (e instanceof ApiError && e.kind === 'backend' && !FINAL_REFUSALS.includes(e.ret ?? 0)) setAsking({ key, name, message: e.message });
      else pushNotice(e.message, 'red');
    },
    onSettled: (_r, _e, { confirm }) => {
      setDeleting(null);
      if (confirm) setAsking(null);
    },
  });
  return { toggle, remove, deleting, setDeleting, asking, setAsking };
}
