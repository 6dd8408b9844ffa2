/** The switch and the delete every rule list has: same calls, same refresh, same notice. */
import type { RouteInput } from '@lucky/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { call } from '../../api';
import { pushNotice } from '../../api/notices';
import type { RuleModule, RuleViewOf, UniformRuleRoutes } from './ruleModule';

export function useRuleActions<R extends UniformRuleRoutes>(rules: RuleModule<R>) {
  const queryClient = useQueryClient();
  const [deleting, setDeleting] = useState<RuleViewOf<R> | null>(null);
  const { keys } = rules.queries;
  const toggle = useMutation({
    mutationFn: ({ key, enable }: { key: string; enable: boolean }) =>
      call(rules.routes.enable, { params: { key }, body: { enable } } as unknown as RouteInput<R['enable']>),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.rules }),
  });
  const remove = useMutation({
    mutationFn: (key: string) => call(rules.routes.remove, { params: { key } } as unknown as RouteInput<R['remove']>),
    onSuccess: async () => {
      pushNotice(rules.text('deleted'), 'green');
      await queryClient.invalidateQueries({ queryKey: keys.rules });
    },
    onSettled: () => setDeleting(null),
  });
  return { toggle, remove, deleting, setDeleting };
}
