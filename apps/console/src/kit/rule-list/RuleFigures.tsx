/** A rule's live figures in the list: lines of "figure · figure", or a note while there is nothing to count. */
import { Stack, Text, Tooltip } from '@mantine/core';
import { Fragment, type ReactNode } from 'react';

export interface Figure {
  text: string;
  testId: string;
  /** The raw number, for scripts and tests (`data-value`). */
  value?: number;
  hint?: string;
}

export function RuleFigures(props: { quiet: boolean; quietText: string; lines: Figure[][]; children?: ReactNode }) {
  if (props.quiet) {
    return (
      <Text fz="xs" c="dimmed">
        {props.quietText}
      </Text>
    );
  }
  return (
    <Stack gap={2}>
      {props.lines.map((figures, i) => (
        // The first line is the headline; the rest read as details.
        <Text key={i} fz="xs" c={i > 0 ? 'dimmed' : undefined} style={{ whiteSpace: 'nowrap' }}>
          {figures.map((f, j) => {
            const span = (
              <span data-testid={f.testId} data-value={f.value}>
                {f.text}
              </span>
            );
            return (
              <Fragment key={f.testId}>
                {j > 0 && ' · '}
                {f.hint ? <Tooltip label={f.hint}>{span}</Tooltip> : span}
              </Fragment>
            );
          })}
        </Text>
      ))}
      {props.children}
    </Stack>
  );
}

/** Connections a forwarding rule refused (limits, IP filter), under its figures; nothing while there are none. */
export function RefusedFigure(props: { count: number; text: string; testId: string }) {
  if (props.count === 0) return null;
  return (
    <Text fz="xs" c="orange" style={{ whiteSpace: 'nowrap' }} data-testid={props.testId}>
      {props.text}
    </Text>
  );
}
