/**
 * A security section's submit: the value checked with its contract schema first (the problems in the
 * reader's language, nothing sent), then sent; `busy` while it goes, `error` with the daemon's refusal.
 */
import { formatIssues } from '@lucky/contracts';
import { useState } from 'react';
import { ApiError } from '../../api';
import { lang } from '../../i18n';
import type { Schema } from '../../kit/form/problems';

/** What a schema gives for a value it accepts. */
type Parsed<S extends Schema> = Extract<ReturnType<S['safeParse']>, { success: true }>['data'];

export function useSubmit() {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  /** `refuse`: a check the schema cannot make, its message when the checked value fails it. */
  const submit = async <S extends Schema>(
    schema: S,
    value: unknown,
    send: (checked: Parsed<S>) => Promise<void>,
    refuse?: (checked: Parsed<S>) => string | null,
  ): Promise<void> => {
    setError(null);
    const checked = schema.safeParse(value);
    if (!checked.success) {
      setError(formatIssues(schema, value, lang));
      return;
    }
    const data = checked.data as Parsed<S>;
    const refusal = refuse?.(data);
    if (refusal) {
      setError(refusal);
      return;
    }
    setBusy(true);
    try {
      await send(data);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  return { error, setError, busy, submit };
}
