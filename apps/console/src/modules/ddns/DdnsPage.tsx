/** Dynamic DNS: task list (status, addresses, last sync, switch, manual sync, log), add/edit, settings. */
import { ActionIcon, Button, Group, Stack, Switch, Table, Text, Tooltip } from '@mantine/core';
import { ddnsRoutes } from '@lucky/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { call } from '../../api';
import { pushNotice } from '../../api/notices';
import { modulesQuery } from '../../api/queries';
import { ConfirmDelete, RuleTableCard } from '../../shell/RuleScreen';
import { useRuleActions } from '../../shell/useRuleActions';
import { PageTitle } from '../../shell/Shell';
import { formatTime, type DdnsRow } from './form';
import { ddnsText } from './i18n';
import { ddnsKeys, ddnsTasksQuery } from './queries';
import { SettingsModal } from './Settings';
import { TaskFormModal, type Editing } from './TaskForm';
import { StatusBadge, TaskLogModal } from './TaskLog';

export function DdnsPage() {
  const modules = useQuery(modulesQuery());
  const enabled = modules.data ? modules.data.Modules.includes('ddns') : true;
  const list = useQuery({ ...ddnsTasksQuery(), enabled });
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<Editing | null>(null);
  const [logOf, setLogOf] = useState<string | null>(null);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ddnsKeys.tasks });

  const { toggle, remove, deleting, setDeleting } = useRuleActions<DdnsRow>({
    routes: ddnsRoutes,
    listKey: ddnsKeys.tasks,
    deletedText: ddnsText('deleted'),
  });

  const sync = useMutation({
    mutationFn: (key: string) => call(ddnsRoutes.sync, { params: { key }, query: { wait: 4 } }),
    onSuccess: (r) => pushNotice(r.done ? r.msg : ddnsText('syncing'), r.done ? 'green' : 'blue'),
    onSettled: refresh,
  });


  const tasks = (list.data?.list ?? []) as unknown as DdnsRow[];
  // The log dialog follows the list's refreshes (record states change while it is open).
  const logTask = logOf ? (tasks.find((x) => x.key === logOf) ?? null) : null;

  return (
    <Stack data-testid="ddns-page">
      <PageTitle
        right={
          <Group gap="xs">
            <Button variant="default" onClick={() => setSettingsOpen(true)} disabled={!enabled} data-testid="ddns-settings-open">
              {ddnsText('settings')}
            </Button>
            <Button onClick={() => setEditing({ key: null, saved: null })} disabled={!enabled} data-testid="ddns-add">
              {ddnsText('add')}
            </Button>
          </Group>
        }
      >
        {ddnsText('title')}
      </PageTitle>
      <RuleTableCard
        module="ddns"
        enabled={enabled}
        loading={list.isPending}
        empty={tasks.length === 0}
        emptyText={ddnsText('empty')}
        testPrefix="ddns"
        minWidth={900}
      >
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{ddnsText('colName')}</Table.Th>
            <Table.Th>{ddnsText('colStatus')}</Table.Th>
            <Table.Th>{ddnsText('colIp')}</Table.Th>
            <Table.Th>{ddnsText('colLastSync')}</Table.Th>
            <Table.Th>{ddnsText('colEnable')}</Table.Th>
            <Table.Th>{ddnsText('colActions')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {tasks.map((x) => (
            <Table.Tr key={x.key} data-testid="ddns-row" data-key={x.key}>
              <Table.Td maw={320}>
                <Text fw={500} fz="sm">
                  {x.name}
                </Text>
                <Text fz="xs" c="dimmed">
                  {ddnsText(`provider.${x.provider}`)} · {x.recordType === 'both' ? 'A + AAAA' : x.recordType}
                </Text>
                <Text fz="xs" c="dimmed" truncate="end" title={x.domains.join('\n')}>
                  {x.domains.slice(0, 2).join(', ')}
                  {x.domains.length > 2 ? ` ${ddnsText('domainsMore', { n: x.domains.length - 2 })}` : ''}
                </Text>
              </Table.Td>
              <Table.Td>
                <Tooltip label={x.sync.message} disabled={!x.sync.message} multiline maw={420}>
                  <span>
                    <StatusBadge status={x.sync.status} testId="ddns-status" />
                  </span>
                </Tooltip>
              </Table.Td>
              <Table.Td style={{ fontFamily: 'monospace', fontSize: 12 }} data-testid="ddns-ip">
                {x.sync.ipv4 && <div>{x.sync.ipv4}</div>}
                {x.sync.ipv6 && <div>{x.sync.ipv6}</div>}
                {!x.sync.ipv4 && !x.sync.ipv6 && <Text c="dimmed">-</Text>}
              </Table.Td>
              <Table.Td fz="sm" data-testid="ddns-lastsync">
                <div>{formatTime(x.sync.lastSync, ddnsText('never'))}</div>
                {x.sync.lastCheck && (
                  <Text fz="xs" c="dimmed">
                    {ddnsText('checkedAt', { time: formatTime(x.sync.lastCheck, '') })}
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                <Switch
                  checked={x.enable}
                  onChange={(e) => toggle.mutate({ key: x.key, enable: e.currentTarget.checked })}
                  aria-label={ddnsText('colEnable')}
                  data-testid="ddns-toggle"
                />
              </Table.Td>
              <Table.Td>
                <Group gap={6} wrap="nowrap">
                  <Button
                    size="xs"
                    onClick={() => sync.mutate(x.key)}
                    disabled={!x.enable}
                    loading={sync.isPending && sync.variables === x.key}
                    data-testid="ddns-sync"
                  >
                    {ddnsText('sync')}
                  </Button>
                  <Button size="xs" variant="light" onClick={() => setLogOf(x.key)} data-testid="ddns-log-open">
                    {ddnsText('log')}
                  </Button>
                  <Button size="xs" variant="default" onClick={() => setEditing({ key: x.key, saved: x })} data-testid="ddns-edit">
                    {ddnsText('editShort')}
                  </Button>
                  <ActionIcon variant="subtle" color="red" onClick={() => setDeleting(x)} aria-label={ddnsText('delete')} size="md" data-testid="ddns-delete">
                    ✕
                  </ActionIcon>
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </RuleTableCard>

      <TaskFormModal editing={editing} onClose={() => setEditing(null)} />
      <TaskLogModal task={logTask} onClose={() => setLogOf(null)} />
      <SettingsModal opened={settingsOpen} onClose={() => setSettingsOpen(false)} />

      <ConfirmDelete
        opened={deleting !== null}
        title={ddnsText('deleteTitle')}
        question={ddnsText('deleteConfirm', { name: deleting?.name ?? '' })}
        deleteText={ddnsText('delete')}
        loading={remove.isPending}
        onCancel={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate(deleting.key)}
        testId="ddns-delete-confirm"
      />
    </Stack>
  );
}
