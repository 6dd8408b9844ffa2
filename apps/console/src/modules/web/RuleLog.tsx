/** A rule's access log (latest 1-256 entries, count chosen here) and its service log, both polled. */
import { Badge, Group, Modal, NumberInput, ScrollArea, Skeleton, Table, Tabs, Text } from '@mantine/core';
import { useDebouncedValue, useMediaQuery } from '@mantine/hooks';
import { WEB_ACCESS_LOG_SHOW_MAX } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { formatBytes } from '../../lib/helpers';
import { codeColor, formatTime, type WebRow } from './form';
import { webText } from './i18n';
import { webAccessLogQuery, webConfigureQuery, webLogsQuery } from './queries';
import { LogLines } from '../../shell/RuleScreen';

export function RuleLogModal(props: { rule: WebRow | null; onClose: () => void }) {
  const narrow = useMediaQuery('(max-width: 768px)');
  return (
    <Modal
      opened={props.rule !== null}
      onClose={props.onClose}
      title={props.rule ? webText('logTitle', { name: props.rule.name }) : ''}
      size={1300}
      fullScreen={narrow}
      data-testid="web-log"
    >
      {props.rule && <RuleLogBody rule={props.rule} />}
    </Modal>
  );
}

/** 1-256, whole numbers; anything else falls back to `fallback`. */
export function clampShow(v: number | string, fallback: number): number {
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isInteger(n) || n < 1) return fallback;
  return Math.min(n, WEB_ACCESS_LOG_SHOW_MAX);
}

function RuleLogBody({ rule }: { rule: WebRow }) {
  const [tab, setTab] = useState<string | null>('access');
  const configure = useQuery(webConfigureQuery());
  const initial = configure.data?.configure.accessLogShow ?? 50;
  const [count, setCount] = useState<number | string | null>(null);
  const shown = count === null ? initial : count;
  // Typing a count waits a moment; the saved default is used at once.
  const [typed] = useDebouncedValue(clampShow(shown, initial), 300);
  const limit = count === null ? initial : typed;
  const access = useQuery({ ...webAccessLogQuery(rule.key, limit), enabled: tab === 'access' && configure.isFetched });
  const logs = useQuery({ ...webLogsQuery(rule.key), enabled: tab === 'log' });
  const entries = [...(access.data?.list ?? [])].reverse();

  return (
    <Tabs value={tab} onChange={setTab} keepMounted={false}>
      <Tabs.List mb="sm">
        <Tabs.Tab value="access" data-testid="web-log-tab-access">
          {webText('tabAccessLog')}
        </Tabs.Tab>
        <Tabs.Tab value="log" data-testid="web-log-tab-log">
          {webText('tabServiceLog')}
        </Tabs.Tab>
      </Tabs.List>
      <Tabs.Panel value="access">
        <Group mb="xs" align="flex-end" justify="space-between">
          <NumberInput
            label={webText('showLatest')}
            description={webText('showLatestHint')}
            min={1}
            max={WEB_ACCESS_LOG_SHOW_MAX}
            allowDecimal={false}
            value={shown}
            onChange={setCount}
            error={clampShow(shown, -1) !== Number(shown) ? webText('showLatestHint') : undefined}
            w={160}
            data-testid="web-log-count"
          />
          {access.data && (
            <Text fz="xs" c="dimmed" data-testid="web-log-total">
              {webText('totalKept', { n: access.data.total })}
            </Text>
          )}
        </Group>
        {access.isPending ? (
          <Skeleton h={200} />
        ) : entries.length === 0 ? (
          <Text c="dimmed" ta="center" p="lg">
            {webText('noAccess')}
          </Text>
        ) : (
          <ScrollArea.Autosize mah="60vh">
            <Table striped fz="xs" verticalSpacing={4} data-testid="web-access-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{webText('alTime')}</Table.Th>
                  <Table.Th>{webText('alClient')}</Table.Th>
                  <Table.Th>{webText('alMethod')}</Table.Th>
                  <Table.Th>{webText('alHost')}</Table.Th>
                  <Table.Th>{webText('alPath')}</Table.Th>
                  <Table.Th>{webText('alStatus')}</Table.Th>
                  <Table.Th>{webText('alBytes')}</Table.Th>
                  <Table.Th>{webText('alMs')}</Table.Th>
                  <Table.Th>{webText('alSub')}</Table.Th>
                  <Table.Th>{webText('alUa')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {entries.map((e, i) => (
                  <Table.Tr key={`${e.time}-${i}`} data-testid="web-access-row">
                    <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatTime(e.time)}</Table.Td>
                    <Table.Td style={{ fontFamily: 'monospace' }}>{e.clientIP}</Table.Td>
                    <Table.Td>{e.method}</Table.Td>
                    <Table.Td style={{ wordBreak: 'break-all' }}>{e.host}</Table.Td>
                    <Table.Td style={{ wordBreak: 'break-all', maxWidth: 280, fontFamily: 'monospace' }}>{e.path}</Table.Td>
                    <Table.Td>
                      <Badge size="sm" variant="light" color={codeColor(String(e.status))} tt="none">
                        {e.status === 0 ? webText('codeClosed') : e.status}
                      </Badge>
                    </Table.Td>
                    <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatBytes(e.bytes)}</Table.Td>
                    <Table.Td style={{ whiteSpace: 'nowrap' }}>{e.ms} ms</Table.Td>
                    <Table.Td>{e.sub || <Text span c="dimmed" fz="xs">{webText('alDefault')}</Text>}</Table.Td>
                    <Table.Td style={{ maxWidth: 240 }}>
                      <Text fz="xs" truncate="end" title={e.userAgent}>
                        {e.userAgent}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollArea.Autosize>
        )}
      </Tabs.Panel>
      <Tabs.Panel value="log">
        <LogLines
          lines={logs.data?.logs.map((l) => l.log)}
          loading={logs.isPending}
          emptyText={webText('noLogs')}
          testId="web-log-text"
        />
      </Tabs.Panel>
    </Tabs>
  );
}
