/** The module-disabled notice, loading, the empty state or the table. */
import { Card, Skeleton, Table, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { ModuleDisabled } from './ModuleDisabled';

export function RuleTableCard(props: {
  /** The module key, for the "module disabled" notice (`module.<key>` text). */
  module: string;
  enabled: boolean;
  loading: boolean;
  empty: boolean;
  emptyText: string;
  /** Test ids: `<prefix>-empty` and `<prefix>-table`. */
  testPrefix: string;
  minWidth: number;
  /** Table.Thead and Table.Tbody. */
  children: ReactNode;
}) {
  if (!props.enabled) return <ModuleDisabled module={props.module} />;
  return (
    <Card withBorder p={0}>
      {props.loading ? (
        <Skeleton h={120} />
      ) : props.empty ? (
        <Text p="lg" c="dimmed" ta="center" data-testid={`${props.testPrefix}-empty`}>
          {props.emptyText}
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={props.minWidth}>
          <Table striped highlightOnHover verticalSpacing="xs" data-testid={`${props.testPrefix}-table`}>
            {props.children}
          </Table>
        </Table.ScrollContainer>
      )}
    </Card>
  );
}
