/**
 * A form that is checked, then sent: a refused check stays in the form; a refused save shows the
 * daemon's message in the form (not twice, as a notice too); a save ends with a notice, the
 * dialog closing and the data shown again from the daemon.
 */
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError } from '../../api';
import { pushNotice } from '../../api/notices';
import type { FormProblem } from './problems';
import { useCheckedForm } from './useCheckedForm';

export function useSavingForm<F, B, Result>(opts: {
  initial: () => F;
  check: (form: F) => FormProblem[];
  toBody: (form: F) => B;
  /** The call; silent, so its failure is shown here only. */
  send: (body: B) => Promise<Result>;
  /** The notice after a save; `afterSave` may say something else instead. */
  savedText?: string;
  afterSave?: (result: Result) => void;
  invalidate: QueryKey;
  onSaved: () => void;
  /** A refused check: bring its problems into view (a tab, a fold, a mode). */
  onRefused?: (problems: FormProblem[]) => void;
}) {
  const checked = useCheckedForm(opts.initial, opts.check);
  const [serverError, setServerError] = useState<string | null>(null);
  const queryClient = useQueryClient();
  const save = useMutation({
    mutationFn: opts.send,
    onSuccess: async (result) => {
      if (opts.savedText !== undefined) pushNotice(opts.savedText, 'green');
      opts.afterSave?.(result);
      opts.onSaved();
      await queryClient.invalidateQueries({ queryKey: opts.invalidate });
    },
    onError: (e) => setServerError(e instanceof ApiError ? e.message : String(e)),
  });
  const submit = () => {
    setServerError(null);
    const found = checked.checkNow();
    if (found.length > 0) opts.onRefused?.(found);
    else save.mutate(opts.toBody(checked.form));
  };
  return { ...checked, serverError, saving: save.isPending, submit };
}
