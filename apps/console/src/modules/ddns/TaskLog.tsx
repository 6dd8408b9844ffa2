/** A task's log (polled), history (addresses seen, sync results, webhook calls) and per-record states. */
import { Badge, Modal, ScrollArea, Skeleton, Table, Tabs, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { DDNS_SYNC_STATUSES, type DdnsSyncStatus } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { formatTime, STATUS_COLOR, type DdnsRow } from './form';
import { ddnsText } from './i18n';
import { ddnsHistoryQuery, ddnsLogsQuery } from './queries';
import { LogLines } from '../../shell/RuleScreen';

const isStatus = (s: string): s is DdnsSyncStatus => (DDNS_SYNC_STATUSES as readonly string[]).includes(s);

export function StatusBadge({ status, testId }: { status: DdnsSyncStatus; testId?: string }) {
  return (
    <Badge color={STATUS_COLOR[status]} variant="light" tt="none" data-testid={testId} data-status={status}>
      {ddnsText(`status.${status}`)}
    </Badge>
  );
}

export function TaskLogModal(props: { task: DdnsRow | null; onClose: () => void }) {
  const narrow = useMediaQuery('(max-width: 768px)');
  return (
    <Modal
      opened={props.task !== null}
      onClose={props.onClose}
      title={props.task ? ddnsText('logTitle', { name: props.task.name }) : ''}
      size={1100}
      fullScreen={narrow}
      data-testid="ddns-log"
    >
      {props.task && <TaskLogBody task={props.task} />}
    </Modal>
  );
}

function TaskLogBody({ task }: { task: DdnsRow }) {
  const [tab, setTab] = useState<string | null>('log');
  const logs = useQuery({ ...ddnsLogsQuery(task.key), enabled: tab === 'log' });
  const history = useQuery({ ...ddnsHistoryQuery(task.key), enabled: tab === 'history' });

  return (
    <Tabs value={tab} onChange={setTab} keepMounted={false}>
      <Tabs.List mb="sm">
        <Tabs.Tab value="log" data-testid="ddns-log-tab-log">
          {ddnsText('tabLog')}
        </Tabs.Tab>
        <Tabs.Tab value="history" data-testid="ddns-log-tab-history">
          {ddnsText('tabHistory')}
        </Tabs.Tab>
        <Tabs.Tab value="records" data-testid="ddns-log-tab-records">
          {ddnsText('tabRecords')}
        </Tabs.Tab>
      </Tabs.List>
      <Tabs.Panel value="log">
        <LogLines
          lines={logs.data?.logs.map((l) => l.log)}
          loading={logs.isPending}
          emptyText={ddnsText('noLogs')}
          testId="ddns-log-text"
        />
      </Tabs.Panel>
      <Tabs.Panel value="history">
        {history.isPending ? (
          <Skeleton h={200} />
        ) : (history.data?.history.length ?? 0) === 0 ? (
          <Text c="dimmed" ta="center" p="lg">
            {ddnsText('noHistory')}
          </Text>
        ) : (
          <ScrollArea.Autosize mah="60vh">
            <Table striped fz="xs" data-testid="ddns-history">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{ddnsText('histTime')}</Table.Th>
                  <Table.Th>{ddnsText('histKind')}</Table.Th>
                  <Table.Th>{ddnsText('histDomain')}</Table.Th>
                  <Table.Th>{ddnsText('histIp')}</Table.Th>
                  <Table.Th>{ddnsText('histStatus')}</Table.Th>
                  <Table.Th>{ddnsText('histMessage')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {history.data!.history.map((h, i) => (
                  <Table.Tr key={`${h.at}-${i}`}>
                    <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatTime(h.at, '')}</Table.Td>
                    <Table.Td style={{ whiteSpace: 'nowrap' }}>{ddnsText(`kind.${h.kind}`)}</Table.Td>
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
                        <StatusBadge status={h.status} />
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
        )}
      </Tabs.Panel>
      <Tabs.Panel value="records">
        {task.sync.records.length === 0 ? (
          <Text c="dimmed" ta="center" p="lg">
            {ddnsText('noRecords')}
          </Text>
        ) : (
          <Table striped fz="xs" data-testid="ddns-records">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{ddnsText('recDomain')}</Table.Th>
                <Table.Th>{ddnsText('recType')}</Table.Th>
                <Table.Th>{ddnsText('recStatus')}</Table.Th>
                <Table.Th>{ddnsText('recIp')}</Table.Th>
                <Table.Th>{ddnsText('recAt')}</Table.Th>
                <Table.Th>{ddnsText('recMessage')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {task.sync.records.map((r) => (
                <Table.Tr key={`${r.domain}-${r.type}`}>
                  <Table.Td>{r.domain}</Table.Td>
                  <Table.Td>{r.type}</Table.Td>
                  <Table.Td>
                    <StatusBadge status={r.status} />
                  </Table.Td>
                  <Table.Td style={{ fontFamily: 'monospace' }}>{r.ip}</Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatTime(r.at, '')}</Table.Td>
                  <Table.Td style={{ wordBreak: 'break-word' }}>{r.message}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Tabs.Panel>
    </Tabs>
  );
}
