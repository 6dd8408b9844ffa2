/** What is wrong with a form, under it: the first problem with the daemon's own line, or every problem listed. */
import { Alert, List, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import type { FormProblem } from './problems';

export function ProblemAlert(props: {
  problems: readonly FormProblem[];
  /** `<id>`, `<id>-message`, `<id>-summary`, `<id>-item`. */
  testId: string;
  /** Lists every problem under this heading instead of the first one alone. */
  listTitle?: string | undefined;
  /** A note after the first problem (why the form changed under the user). */
  note?: ReactNode;
}) {
  const first = props.problems[0];
  if (!first) return null;
  const id = props.testId;
  return (
    <Alert color="red" p="xs" data-testid={id}>
      {props.listTitle !== undefined ? (
        <>
          <Text fz="sm" fw={500}>
            {props.listTitle}
          </Text>
          <List size="sm" spacing={2}>
            {props.problems.map((p) => (
              <List.Item key={p.field} data-testid={`${id}-item`} data-field={p.field}>
                {p.message}
              </List.Item>
            ))}
          </List>
        </>
      ) : (
        <>
          <Text fz="sm" fw={500} data-testid={`${id}-message`}>
            {first.message}
          </Text>
          {first.summary !== first.message && (
            <Text fz="xs" c="dimmed" data-testid={`${id}-summary`}>
              {first.summary}
            </Text>
          )}
          {props.note && (
            <Text fz="xs" c="dimmed">
              {props.note}
            </Text>
          )}
        </>
      )}
    </Alert>
  );
}
