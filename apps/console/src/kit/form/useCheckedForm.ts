/**
 * A form's state and its problems. Checked when the user saves; after a refused save, again on
 * every change, so a fixed field stops showing red at once.
 */
import { useMemo, useState } from 'react';
import { errorFor, type FormProblem } from './problems';

export function useCheckedForm<F>(initial: () => F, check: (form: F) => FormProblem[]) {
  const [form, setForm] = useState<F>(initial);
  const [attempt, setAttempt] = useState(0);
  const problems = useMemo(() => (attempt > 0 ? check(form) : []), [attempt, form]);
  return {
    form,
    setForm,
    problems,
    /** Refused saves so far: what scrolling to the first problem waits for. */
    attempt,
    set: (patch: Partial<F>) => setForm((f) => ({ ...f, ...patch })),
    /** Changes a copy: nested fields (lists of entries) are edited in place. */
    edit: (change: (draft: F) => void) =>
      setForm((prev) => {
        const draft = structuredClone(prev);
        change(draft);
        return draft;
      }),
    err: (field: string) => errorFor(problems, field),
    /** Counts a save attempt and checks the form as it is: empty when it may be sent. */
    checkNow: (): FormProblem[] => {
      setAttempt((n) => n + 1);
      return check(form);
    },
  };
}
