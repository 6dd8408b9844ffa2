/** The audit log: newest first, older pages on request. */
import { Badge, Button, Group, Table, Text } from '@mantine/core';
import { useInfiniteQuery } from '@tanstack/react-query';
import { safeText } from './i18n';
import { auditQuery } from './queries';
import { Listing, RefreshButton, Section, fmtTime } from './ui';
import { ScrolledTable } from '../../kit/table/ScrolledTable';

export function AuditSection() {
  const audit = useInfiniteQuery(auditQuery());
  const rows = audit.data?.pages.flatMap((p) => p.list) ?? [];

  return (
    <Section
      testid="safe-audit"
      title={safeText('tab.audit')}
      right={<RefreshButton onClick={() => void audit.refetch()} loading={audit.isRefetching && !audit.isFetchingNextPage} />}
      intro={safeText('au.intro')}
    >
      <Listing pending={audit.isPending} empty={rows.length === 0} skeletonH={160} emptyText={safeText('au.empty')} centered>
        <ScrolledTable minWidth={820} striped highlightOnHover verticalSpacing={4} data-testid="safe-audit-table" titles={(['au.time', 'au.actor', 'au.address', 'au.action', 'au.target', 'au.result'] as const).map((id) => safeText(id))}>
          {rows.map((r) => (
            <Table.Tr key={r.id} data-testid="safe-audit-row" data-id={r.id}>
              <Table.Td fz="sm" style={{ whiteSpace: 'nowrap' }}>
                {fmtTime(r.time)}
              </Table.Td>
              <Table.Td fz="sm">{r.actor}</Table.Td>
              <Table.Td fz="sm" style={{ fontFamily: 'monospace' }}>
                {r.address}
              </Table.Td>
              <Table.Td fz="sm" style={{ fontFamily: 'monospace' }} data-testid="safe-audit-action">
                {r.action}
              </Table.Td>
              <Table.Td fz="sm" style={{ fontFamily: 'monospace' }}>
                {r.target || '-'}
              </Table.Td>
              <Table.Td>
                {r.result === 0 ? (
                  <Badge color="green" variant="light" size="sm">
                    {safeText('au.ok')}
                  </Badge>
                ) : (
                  <Badge color="red" variant="light" size="sm">
                    {safeText('au.failed', { ret: r.result })}
                  </Badge>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </ScrolledTable>
        <Group justify="center" mt="sm">
          {audit.hasNextPage ? (
            <Button variant="light" size="xs" onClick={() => void audit.fetchNextPage()} loading={audit.isFetchingNextPage} data-testid="safe-audit-more">
              {safeText('au.more')}
            </Button>
          ) : (
            <Text fz="xs" c="dimmed" data-testid="safe-audit-end">
              {safeText('au.end')}
            </Text>
          )}
        </Group>
      </Listing>
    </Section>
  );
}
