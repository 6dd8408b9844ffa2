/** A rule's access log: the latest 1-256 requests (the count chosen here, the module setting by default), polled. */
import { Badge, Group, NumberInput, ScrollArea, Skeleton, Table, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { WEB_ACCESS_LOG_SHOW_MAX } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { formatTime } from '../../kit/form/values';
import { formatBytes } from '../../lib/helpers';
import { webText } from './i18n';
import { codeColor } from './listing';
import { webAccessLogQuery, webQueries } from './queries';
import { TableHead } from '../../kit/table/TableHead';

/** 1-256, whole numbers; anything else falls back to `fallback`. */
export function clampShow(v: number | string, fallback: number): number {
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isInteger(n) || n < 1) return fallback;
  return Math.min(n, WEB_ACCESS_LOG_SHOW_MAX);
}

const nowrap = { whiteSpace: 'nowrap' } as const;

export function AccessLog({ ruleKey }: { ruleKey: string }) {
  const configure = useQuery(webQueries.configure());
  const initial = configure.data?.configure.accessLogShow ?? 50;
  const [count, setCount] = useState<number | string | null>(null);
  const shown = count === null ? initial : count;
  // Typing a count waits a moment; the saved default is used at once.
  const [typed] = useDebouncedValue(clampShow(shown, initial), 300);
  const limit = count === null ? initial : typed;
  const access = useQuery({ ...webAccessLogQuery(ruleKey, limit), enabled: configure.isFetched });
  const entries = [...(access.data?.list ?? [])].reverse();

  return (
    <>
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
            <TableHead titles={(['alTime', 'alClient', 'alMethod', 'alHost', 'alPath', 'alStatus', 'alBytes', 'alMs', 'alSub', 'alUa'] as const).map((id) => webText(id))} />
            <Table.Tbody>
              {entries.map((e, i) => (
                <Table.Tr key={`${e.time}-${i}`} data-testid="web-access-row">
                  <Table.Td style={nowrap}>{formatTime(e.time)}</Table.Td>
                  <Table.Td style={{ fontFamily: 'monospace' }}>{e.clientIP}</Table.Td>
                  <Table.Td>{e.method}</Table.Td>
                  <Table.Td style={{ wordBreak: 'break-all' }}>{e.host}</Table.Td>
                  <Table.Td style={{ wordBreak: 'break-all', maxWidth: 280, fontFamily: 'monospace' }}>{e.path}</Table.Td>
                  <Table.Td>
                    <Badge size="sm" variant="light" color={codeColor(String(e.status))} tt="none">
                      {e.status === 0 ? webText('codeClosed') : e.status}
                    </Badge>
                  </Table.Td>
                  <Table.Td style={nowrap}>{formatBytes(e.bytes)}</Table.Td>
                  <Table.Td style={nowrap}>{e.ms} ms</Table.Td>
                  <Table.Td>
                    {e.sub || (
                      <Text span c="dimmed" fz="xs">
                        {webText('alDefault')}
                      </Text>
                    )}
                  </Table.Td>
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
    </>
  );
}
