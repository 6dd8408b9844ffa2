/** A task's history (addresses seen, sync results, webhook calls) and the state of each of its records. */
import { Badge, ScrollArea, Skeleton, Table, Text } from '@mantine/core';
import { DDNS_SYNC_STATUSES, type DdnsSyncStatus, type ddnsRoutes } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { formatTime } from '../../kit/form/values';
import type { RuleViewOf } from '../../kit/rule-list/ruleModule';
import { STATUS_COLOR } from './form';
import { ddnsText } from './i18n';
import { ddnsHistoryQuery } from './queries';
import { TableHead } from '../../kit/table/TableHead';

type Task = RuleViewOf<typeof ddnsRoutes>;

const isStatus = (s: string): s is DdnsSyncStatus => (DDNS_SYNC_STATUSES as readonly string[]).includes(s);

export function SyncStatusBadge({ status, testId }: { status: DdnsSyncStatus; testId?: string }) {
  return (
    <Badge color={STATUS_COLOR[status]} variant="light" tt="none" data-testid={testId} data-status={status}>
      {ddnsText(`status.${status}`)}
    </Badge>
  );
}

function Empty({ text }: { text: string }) {
  return (
    <Text c="dimmed" ta="center" p="lg">
      {text}
    </Text>
  );
}

const nowrap = { whiteSpace: 'nowrap' } as const;

export function HistoryTable({ task }: { task: Task }) {
  const history = useQuery(ddnsHistoryQuery(task.key));
  if (history.isPending) return <Skeleton h={200} />;
  const rows = history.data?.history ?? [];
  if (rows.length === 0) return <Empty text={ddnsText('noHistory')} />;
  return (
    <ScrollArea.Autosize mah="60vh">
      <Table striped fz="xs" data-testid="ddns-history">
        <TableHead titles={[ddnsText('histTime'), ddnsText('histKind'), ddnsText('histDomain'), ddnsText('histIp'), ddnsText('histStatus'), ddnsText('histMessage')]} />
        <Table.Tbody>
          {rows.map((h, i) => (
            <Table.Tr key={`${h.at}-${i}`}>
              <Table.Td style={nowrap}>{formatTime(h.at)}</Table.Td>
              <Table.Td style={nowrap}>{ddnsText(`kind.${h.kind}`)}</Table.Td>
              <Table.Td>
                {h.domain}
                {h.recordType && (
                  <Text span c="dimmed" fz="xs">
                    {' '}
                    {h.recordType}
                  </Text>
                )}
              </Table.Td>
              <Table.Td style={{ fontFamily: 'monospace' }}>{h.ip}</Table.Td>
              <Table.Td>
                {isStatus(h.status) ? (
                  <SyncStatusBadge status={h.status} />
                ) : h.status === 'ok' || h.status === 'failed' ? (
                  <Badge color={h.status === 'ok' ? 'green' : 'red'} variant="light" tt="none">
                    {ddnsText(h.status === 'ok' ? 'webhookOk' : 'webhookFailed')}
                  </Badge>
                ) : (
                  h.status
                )}
              </Table.Td>
              <Table.Td style={{ wordBreak: 'break-word' }}>{h.message}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </ScrollArea.Autosize>
  );
}

/** From the list's row: it follows the list's refreshes. */
export function RecordsTable({ task }: { task: Task }) {
  if (task.sync.records.length === 0) return <Empty text={ddnsText('noRecords')} />;
  return (
    <Table striped fz="xs" data-testid="ddns-records">
      <TableHead titles={[ddnsText('recDomain'), ddnsText('recType'), ddnsText('recStatus'), ddnsText('recIp'), ddnsText('recAt'), ddnsText('recMessage')]} />
      <Table.Tbody>
        {task.sync.records.map((r) => (
          <Table.Tr key={`${r.domain}-${r.type}`}>
            <Table.Td>{r.domain}</Table.Td>
            <Table.Td>{r.type}</Table.Td>
            <Table.Td>
              <SyncStatusBadge status={r.status} />
            </Table.Td>
            <Table.Td style={{ fontFamily: 'monospace' }}>{r.ip}</Table.Td>
            <Table.Td style={nowrap}>{formatTime(r.at)}</Table.Td>
            <Table.Td style={{ wordBreak: 'break-word' }}>{r.message}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
