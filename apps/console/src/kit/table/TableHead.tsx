import { Table } from '@mantine/core';

/** A table's header row, from its column titles ('' for a column without one). */
export function TableHead(props: { titles: string[] }) {
  return (
    <Table.Thead>
      <Table.Tr>
        {props.titles.map((t, i) => (
          <Table.Th key={`${i}-${t}`}>{t}</Table.Th>
        ))}
      </Table.Tr>
    </Table.Thead>
  );
}
