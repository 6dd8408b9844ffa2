import { Table, type TableProps } from '@mantine/core';
import type { ReactNode } from 'react';
import { TableHead } from './TableHead';

/** A table with its header row that scrolls sideways below `minWidth`; the children are its rows. */
export function ScrolledTable(props: TableProps & { minWidth: number; titles: string[]; 'data-testid'?: string; children: ReactNode }) {
  const { minWidth, titles, children, ...table } = props;
  return (
    <Table.ScrollContainer minWidth={minWidth}>
      <Table {...table}>
        <TableHead titles={titles} />
        <Table.Tbody>{children}</Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
