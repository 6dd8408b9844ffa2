/** Dynamic DNS: task list (status, addresses, last sync, switch, manual sync, log), add/edit, settings. */
import { Button, Text, Tooltip } from '@mantine/core';
import type { ddnsRoutes } from '@lucky/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { call } from '../../api';
import { pushNotice } from '../../api/notices';
import { formatTime } from '../../kit/form/values';
import { FirstEntries, RuleNameCell } from '../../kit/rule-list/RuleCells';
import type { RuleViewOf } from '../../kit/rule-list/ruleModule';
import { RulePage, type RuleColumn } from '../../kit/rule-list/RulePage';
import { RuleLogLines, type LogTab } from '../../kit/rule-log/RuleLogDialog';
import { providerLabel } from './form';
import { ddnsText } from './i18n';
import { RuleForm } from './RuleForm';
import { ddnsRules } from './ruleModule';
import { SettingsForm } from './SettingsForm';
import { HistoryTable, RecordsTable, SyncStatusBadge } from './TaskHistory';

type Task = RuleViewOf<typeof ddnsRoutes>;

const columns: RuleColumn<Task>[] = [
  {
    head: ddnsText('colName'),
    td: { maw: 320 },
    cell: (x) => (
      <RuleNameCell name={x.name} testId={ddnsRules.testIds.rowName}>
        <Text fz="xs" c="dimmed">
          {providerLabel(x.provider)} · {x.recordType === 'both' ? 'A + AAAA' : x.recordType}
        </Text>
        <FirstEntries entries={x.domains} text={ddnsText} />
      </RuleNameCell>
    ),
  },
  {
    head: ddnsText('colStatus'),
    cell: (x) => (
      <Tooltip label={x.sync.message} disabled={!x.sync.message} multiline maw={420}>
        <span>
          <SyncStatusBadge status={x.sync.status} testId="ddns-status" />
        </span>
      </Tooltip>
    ),
  },
  {
    head: ddnsText('colIp'),
    td: { style: { fontFamily: 'monospace', fontSize: 12 }, 'data-testid': 'ddns-ip' },
    cell: (x) => (
      <>
        {x.sync.ipv4 && <div>{x.sync.ipv4}</div>}
        {x.sync.ipv6 && <div>{x.sync.ipv6}</div>}
        {!x.sync.ipv4 && !x.sync.ipv6 && <Text c="dimmed">-</Text>}
      </>
    ),
  },
  {
    head: ddnsText('colLastSync'),
    td: { fz: 'sm', 'data-testid': 'ddns-lastsync' },
    cell: (x) => (
      <>
        <div>{x.sync.lastSync ? formatTime(x.sync.lastSync) : ddnsText('never')}</div>
        {x.sync.lastCheck && (
          <Text fz="xs" c="dimmed">
            {ddnsText('checkedAt', { time: formatTime(x.sync.lastCheck) })}
          </Text>
        )}
      </>
    ),
  },
];

const logTabs: LogTab<Task>[] = [
  { value: 'log', label: ddnsText('tabLog'), render: (x) => <RuleLogLines rules={ddnsRules} ruleKey={x.key} /> },
  { value: 'history', label: ddnsText('tabHistory'), render: (x) => <HistoryTable task={x} /> },
  { value: 'records', label: ddnsText('tabRecords'), render: (x) => <RecordsTable task={x} /> },
];

export function DdnsPage() {
  return <RulePage rules={ddnsRules} columns={columns} actions={(x) => <SyncButton task={x} />} logTabs={logTabs} Form={RuleForm} Settings={SettingsForm} />;
}

/** Syncs now; waits a few seconds for the result, or says it is under way. */
function SyncButton({ task }: { task: Task }) {
  const queryClient = useQueryClient();
  const sync = useMutation({
    mutationFn: () => call(ddnsRules.routes.sync, { params: { key: task.key }, query: { wait: 4 } }),
    onSuccess: (r) => pushNotice(r.done ? r.msg : ddnsText('syncing'), r.done ? 'green' : 'blue'),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ddnsRules.queries.keys.rules }),
  });
  return (
    <Button size="xs" onClick={() => sync.mutate()} disabled={!task.enable} loading={sync.isPending} data-testid="ddns-sync">
      {ddnsText('sync')}
    </Button>
  );
}
