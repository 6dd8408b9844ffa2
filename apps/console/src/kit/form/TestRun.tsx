/**
 * The "test" buttons of the forms (an IP source, a webhook, a NAT test): the request is checked by its
 * contract first, so a form's mistake is said at once; then sent, and its outcome shown.
 */
import { Alert, Text } from '@mantine/core';
import { formatIssues } from '@lucky/contracts';
import { useMutation } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { ApiError } from '../../api';
import { lang } from '../../i18n';
import type { Schema } from './problems';


export type TestOutcome<R> = { kind: 'refused'; message: string } | { kind: 'failed'; message: string } | { kind: 'answered'; data: R } | null;

export const errorText = (err: unknown) => (err instanceof ApiError ? err.message : String(err));

export function useTestRun<B, R>(schema: Schema, send: (body: B) => Promise<R>) {
  const [refused, setRefused] = useState<string | null>(null);
  const call = useMutation({ mutationFn: send });
  const reset = () => {
    setRefused(null);
    call.reset();
  };
  const outcome: TestOutcome<R> =
    refused !== null ? { kind: 'refused', message: refused } : call.isError ? { kind: 'failed', message: errorText(call.error) } : call.data ? { kind: 'answered', data: call.data } : null;
  return {
    pending: call.isPending,
    reset,
    outcome,
    run: (body: B) => {
      reset();
      if (schema.safeParse(body).success) call.mutate(body);
      else setRefused(formatIssues(schema, body, lang));
    },
  };
}

export function TestResult(props: { ok: boolean; children: ReactNode; testId: string }) {
  return (
    <Alert color={props.ok ? 'green' : 'red'} p="xs" data-testid={props.testId}>
      <Text fz="sm" style={{ wordBreak: 'break-word' }}>
        {props.children}
      </Text>
    </Alert>
  );
}
