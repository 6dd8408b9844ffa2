/** Scheduled tasks: the schedule in words, next run, last result, switch, run now, history drawer, edit, log, delete. */
import { Badge, Button, Code, Drawer, Group, Stack, Text } from '@mantine/core';
import { cronRoutes, type CronRun } from '@lucky/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { call } from '../../api';
import { pushNotice } from '../../api/notices';
import { formatTime } from '../../kit/form/values';
import { RuleNameCell, RuleStatusCell } from '../../kit/rule-list/RuleCells';
import type { RuleViewOf } from '../../kit/rule-list/ruleModule';
import { RulePage, type RuleColumn } from '../../kit/rule-list/RulePage';
import { cronText } from './i18n';
import { RuleForm } from './RuleForm';
import { cronRules } from './ruleModule';

type Row = RuleViewOf<typeof cronRoutes>;

const RESULT_COLOR = { ok: 'green', failed: 'red', running: 'blue' } as const;

function ResultBadge({ result, testId }: { result: CronRun['result']; testId?: string }) {
  return (
    <Badge color={RESULT_COLOR[result]} variant="light" data-testid={testId} data-result={result}>
      {cronText(`result.${result}`)}
    </Badge>
  );
}

const columns: RuleColumn<Row>[] = [
  { head: cronText('colName'), cell: (d) => <RuleNameCell name={d.name} note={d.note} testId={cronRules.testIds.rowName} /> },
  { head: cronText('schedule'), td: { fz: 'sm', 'data-testid': 'cron-schedule' }, cell: (d) => d.scheduleText },
  { head: cronText('nextRun'), td: { fz: 'sm', 'data-testid': 'cron-next' }, cell: (d) => (d.nextRun ? formatTime(d.nextRun) : '—') },
  {
    head: cronText('lastRun'),
    cell: (d) =>
      d.running ? (
        <ResultBadge result="running" testId="cron-last" />
      ) : d.lastRun ? (
        <Stack gap={0}>
          <ResultBadge result={d.lastRun.result} testId="cron-last" />
          <Text size="xs" c="dimmed">
            {formatTime(d.lastRun.start)}
          </Text>
        </Stack>
      ) : (
        <Text size="sm" c="dimmed" data-testid="cron-last">
          {cronText('noRun')}
        </Text>
      ),
  },
  { head: cronText('status'), cell: (d) => <RuleStatusCell status={d.status} text={cronText} testIds={cronRules.testIds} /> },
];

export function CronPage() {
  const [historyOf, setHistoryOf] = useState<Row | null>(null);
  return (
    <>
      <RulePage
        rules={cronRules}
        columns={columns}
        actions={(d) => (
          <>
            <RunNowButton task={d} />
            <Button size="xs" variant="light" onClick={() => setHistoryOf(d)} data-testid="cron-history-open">
              {cronText('history')}
            </Button>
          </>
        )}
        Form={RuleForm}
      />
      <HistoryDrawer task={historyOf} onClose={() => setHistoryOf(null)} />
    </>
  );
}

function RunNowButton({ task }: { task: Row }) {
  const queryClient = useQueryClient();
  const run = useMutation({
    mutationFn: () => call(cronRoutes.runNow, { params: { key: task.key }, query: { wait: '0' } }),
    onSuccess: async (r) => {
      pushNotice(r.msg, 'green');
      await queryClient.invalidateQueries({ queryKey: cronRules.queries.keys.all });
    },
  });
  return (
    <Button size="xs" onClick={() => run.mutate()} loading={run.isPending} data-testid="cron-run-now">
      {cronText('runNow')}
    </Button>
  );
}

function HistoryDrawer({ task, onClose }: { task: Row | null; onClose: () => void }) {
  const runs = useQuery({
    queryKey: ['cron', 'runs', task?.key ?? ''],
    queryFn: ({ signal }) => call(cronRoutes.runs, { params: { key: task!.key }, query: { limit: 50 } }, { signal }),
    enabled: task !== null,
    refetchInterval: 3000,
    gcTime: 0,
  });
  const list = runs.data?.runs ?? [];
  return (
    <Drawer opened={task !== null} onClose={onClose} position="right" size="xl" title={task ? cronText('historyTitle', { name: task.name }) : ''} data-testid="cron-history">
      {list.length === 0 ? (
        <Text c="dimmed" data-testid="cron-history-empty">
          {cronText('noHistory')}
        </Text>
      ) : (
        <Stack gap="md">
          {list.map((r) => (
            <Stack key={r.id} gap={4} data-testid="cron-history-run" data-result={r.result}>
              <Group gap="xs">
                <ResultBadge result={r.result} />
                <Text size="sm">{formatTime(r.start)}</Text>
                <Text size="sm" c="dimmed">
                  {cronText(`trigger.${r.trigger}`)} · {cronText('duration', { ms: r.ms })}
                </Text>
              </Group>
              {r.actions.map((a, i) => (
                <Stack key={i} gap={2} pl="md">
                  <Text size="sm" c={a.ok ? undefined : 'red'} data-testid="cron-history-action">
                    {i + 1}. {cronText(`action.${a.type}`)}: {a.summary}
                  </Text>
                  {a.output !== '' && (
                    <Code block fz={11} mah={200} style={{ overflow: 'auto' }} data-testid="cron-history-output">
                      {a.output}
                    </Code>
                  )}
                  {a.truncated && (
                    <Text size="xs" c="dimmed">
                      {cronText('truncated')}
                    </Text>
                  )}
                </Stack>
              ))}
            </Stack>
          ))}
        </Stack>
      )}
    </Drawer>
  );
}
