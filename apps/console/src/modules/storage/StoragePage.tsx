/** Storage management: storages (kind, directory or remote server, read-only and quota, usage bars of local ones, the services using each, status, switch, log, edit, delete) and, under them, the users with their permissions. */
import { Badge, Group, Progress, Stack, Text, Tooltip } from '@mantine/core';
import type { storageRoutes } from '@lucky/contracts';
import { BadgeList, RuleNameCell, RuleStatusCell } from '../../kit/rule-list/RuleCells';
import type { RuleViewOf } from '../../kit/rule-list/ruleModule';
import { RulePage, type RuleColumn } from '../../kit/rule-list/RulePage';
import { formatBytes } from '../../lib/helpers';
import { barColor, serviceName, storageWhere, usageBars, type UsageBar } from './form';
import { storageText } from './i18n';
import { RuleForm } from './RuleForm';
import { storageRules } from './ruleModule';
import { UsersSection } from './UsersSection';

type Row = RuleViewOf<typeof storageRoutes>;

const columns: RuleColumn<Row>[] = [
  { head: storageText('colName'), td: { maw: 220 }, cell: (r) => <NameCell r={r} /> },
  {
    head: storageText('colPath'),
    td: { maw: 260 },
    cell: (r) => (
      <Text fz="sm" style={{ fontFamily: 'monospace', wordBreak: 'break-all' }} data-testid="storage-row-path" data-kind={r.kind}>
        {storageWhere(r)}
      </Text>
    ),
  },
  { head: storageText('colUsage'), td: { w: 240 }, cell: (r) => <UsageCell r={r} /> },
  { head: storageText('colUsedBy'), td: { maw: 200 }, cell: (r) => <UsedByCell r={r} /> },
  { head: storageText('colStatus'), td: { maw: 240 }, cell: (r) => <RuleStatusCell status={r.status} text={storageText} testIds={storageRules.testIds} /> },
];

export function StoragePage() {
  return (
    <RulePage
      rules={storageRules}
      columns={columns}
      Form={RuleForm}
      below={(rows, enabled) => enabled && <UsersSection storages={rows} />}
    />
  );
}

function NameCell({ r }: { r: Row }) {
  return (
    <RuleNameCell name={r.name} note={r.note} testId={storageRules.testIds.rowName}>
      <Group gap={4} mt={2}>
        <Badge size="xs" variant="light" color={r.kind === 'local' ? 'gray' : 'grape'} tt="none" data-testid="storage-row-kind" data-kind={r.kind}>
          {storageText(`kind.${r.kind}`)}
        </Badge>
        {r.readOnly && (
          <Badge size="xs" variant="light" color="gray" tt="none" data-testid="storage-row-readonly">
            {storageText('readOnly')}
          </Badge>
        )}
        {r.quota !== null && (
          <Badge size="xs" variant="outline" color="blue" tt="none" data-testid="storage-row-quota" data-value={r.quota}>
            {storageText('quotaBadge', { v: formatBytes(r.quota) })}
          </Badge>
        )}
      </Group>
    </RuleNameCell>
  );
}

function Bar(props: { bar: UsageBar; label: string; testId: string }) {
  return (
    <div data-testid={props.testId} data-used={props.bar.used} data-total={props.bar.total}>
      <Tooltip label={storageText('usageFree', { v: formatBytes(props.bar.total - props.bar.used) })}>
        <Progress value={props.bar.percent} color={barColor(props.bar.percent)} size="sm" />
      </Tooltip>
      <Text fz="xs" c="dimmed" mt={2} style={{ whiteSpace: 'nowrap' }}>
        {props.label}
      </Text>
    </div>
  );
}

/** With a quota: the storage's use of it first; a local one's filesystem always; a remote has no disk here. */
function UsageCell({ r }: { r: Row }) {
  const u = usageBars(r.quota, r.usage);
  if (r.kind !== 'local') {
    return u.quota ? (
      <Bar bar={u.quota} label={storageText('usageQuota', { used: formatBytes(u.quota.used), quota: formatBytes(u.quota.total) })} testId="storage-usage-quota" />
    ) : (
      <Text fz="xs" c="dimmed" data-testid="storage-usage-remote">
        {storageText('noUsageRemote')}
      </Text>
    );
  }
  return (
    <Stack gap={6}>
      {u.quota && <Bar bar={u.quota} label={storageText('usageQuota', { used: formatBytes(u.quota.used), quota: formatBytes(u.quota.total) })} testId="storage-usage-quota" />}
      {u.counting && (
        <Text fz="xs" c="dimmed" data-testid="storage-usage-counting">
          {storageText('usageCounting')}
        </Text>
      )}
      <Bar bar={u.fs} label={storageText('usageFs', { used: formatBytes(u.fs.used), total: formatBytes(u.fs.total) })} testId="storage-usage-fs" />
    </Stack>
  );
}

function UsedByCell({ r }: { r: Row }) {
  const services = r.usage.usedBy.map((s) => ({ key: s, label: serviceName(s, storageText) }));
  return <BadgeList entries={services} emptyText={storageText('notUsed')} color="teal" testId="storage-used-by" attr="data-services" />;
}
