/** Port forwarding: rule list (listen, targets, engine status, live figures, switch), add/edit, log, settings. */
import { ActionIcon, Badge, Button, Group, Stack, Switch, Table, Text, Tooltip } from '@mantine/core';
import { portforwardRoutes } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { modulesQuery } from '../../api/queries';
import { ConfirmDelete, RuleTableCard } from '../../shell/RuleScreen';
import { useRuleActions } from '../../shell/useRuleActions';
import { PageTitle } from '../../shell/Shell';
import { RuleLogModal, SettingsModal } from './Dialogs';
import { figuresText, hostText, portCount, STATE_COLOR, type PfRow } from './form';
import { pfText } from './i18n';
import { pfKeys, pfRulesQuery } from './queries';
import { RuleFormModal, type Editing } from './RuleForm';

export function PortforwardPage() {
  const modules = useQuery(modulesQuery());
  const enabled = modules.data ? modules.data.Modules.includes('portforward') : true;
  const list = useQuery({ ...pfRulesQuery(), enabled });
  const [editing, setEditing] = useState<Editing | null>(null);
  const [logOf, setLogOf] = useState<string | null>(null);
  const [settingsOpen, setSettingsOpen] = useState(false);

  const { toggle, remove, deleting, setDeleting } = useRuleActions<PfRow>({
    routes: portforwardRoutes,
    listKey: pfKeys.rules,
    afterDelete: pfKeys.all,
    deletedText: pfText('deleted'),
  });


  const rules = (list.data?.list ?? []) as unknown as PfRow[];
  const logRule = logOf ? (rules.find((r) => r.key === logOf) ?? null) : null;

  return (
    <Stack data-testid="pf-page">
      <PageTitle
        right={
          <Group gap="xs">
            <Button variant="default" onClick={() => setSettingsOpen(true)} disabled={!enabled} data-testid="pf-settings-open">
              {pfText('settings')}
            </Button>
            <Button onClick={() => setEditing({ key: null, saved: null })} disabled={!enabled} data-testid="pf-add">
              {pfText('add')}
            </Button>
          </Group>
        }
      >
        {pfText('title')}
      </PageTitle>
      <RuleTableCard
        module="portforward"
        enabled={enabled}
        loading={list.isPending}
        empty={rules.length === 0}
        emptyText={pfText('empty')}
        testPrefix="pf"
        minWidth={1100}
      >
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{pfText('colName')}</Table.Th>
            <Table.Th>{pfText('colListen')}</Table.Th>
            <Table.Th>{pfText('colTargets')}</Table.Th>
            <Table.Th>{pfText('colStatus')}</Table.Th>
            <Table.Th>{pfText('colFigures')}</Table.Th>
            <Table.Th>{pfText('colEnable')}</Table.Th>
            <Table.Th>{pfText('colActions')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rules.map((r) => (
            <RuleRow
              key={r.key}
              r={r}
              onToggle={(enable) => toggle.mutate({ key: r.key, enable })}
              onLog={() => setLogOf(r.key)}
              onEdit={() => setEditing({ key: r.key, saved: r })}
              onDelete={() => setDeleting(r)}
            />
          ))}
        </Table.Tbody>
      </RuleTableCard>

      <RuleFormModal editing={editing} onClose={() => setEditing(null)} />
      <RuleLogModal rule={logRule} onClose={() => setLogOf(null)} />
      <SettingsModal opened={settingsOpen} onClose={() => setSettingsOpen(false)} />

      <ConfirmDelete
        opened={deleting !== null}
        title={pfText('deleteTitle')}
        question={pfText('deleteConfirm', { name: deleting?.name ?? '' })}
        deleteText={pfText('delete')}
        loading={remove.isPending}
        onCancel={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate(deleting.key)}
        testId="pf-delete-confirm"
      />
    </Stack>
  );
}

const mono = { fontFamily: 'monospace' } as const;

function RuleRow(props: { r: PfRow; onToggle: (v: boolean) => void; onLog: () => void; onEdit: () => void; onDelete: () => void }) {
  const { r } = props;
  const s = r.stats;
  const f = figuresText(s);
  const state = r.status.state;
  const listenCount = portCount(r.listenPorts);
  const quiet = s.totalConnections === 0 && s.udpSessions === 0 && s.bytesIn === 0 && s.bytesOut === 0 && f.refused === 0;
  return (
    <Table.Tr data-testid="pf-row" data-key={r.key} data-name={r.name}>
      <Table.Td maw={220}>
        <Text fw={500} fz="sm" data-testid="pf-row-name">
          {r.name}
        </Text>
        <Group gap={4} mt={2}>
          {r.types.map((ty) => (
            <Badge key={ty} size="xs" variant="outline" tt="none" color={ty.startsWith('tcp') ? 'blue' : 'grape'}>
              {ty}
            </Badge>
          ))}
          {(r.tls.listen || r.tls.target) && (
            <Badge size="xs" variant="light" color="teal" tt="none">
              {pfText('tlsBadge')}
            </Badge>
          )}
          {r.proxyProtocol !== 'off' && (
            <Badge size="xs" variant="light" color="gray" tt="none">
              {pfText('proxyBadge', { v: r.proxyProtocol })}
            </Badge>
          )}
          {r.filter.mode !== 'off' && (
            <Badge size="xs" variant="light" color="orange" tt="none">
              {pfText(`filter.${r.filter.mode}`)}
            </Badge>
          )}
        </Group>
        {r.note && (
          <Text fz="xs" c="dimmed" truncate="end" title={r.note}>
            {r.note}
          </Text>
        )}
      </Table.Td>
      <Table.Td maw={220}>
        <Text fz="sm" style={{ ...mono, wordBreak: 'break-all' }} data-testid="pf-row-listen">
          {r.listenHost === '' ? '*' : hostText(r.listenHost)}:{r.listenPorts.replace(/\s+/g, '')}
        </Text>
        <Text fz="xs" c="dimmed">
          {r.listenHost === '' ? pfText('allAddresses') : ''}
          {r.listenHost === '' && listenCount > 1 ? ' · ' : ''}
          {listenCount > 1 ? pfText('portsN', { n: listenCount }) : ''}
        </Text>
      </Table.Td>
      <Table.Td maw={240}>
        <Text fz="sm" style={{ ...mono, wordBreak: 'break-all' }} data-testid="pf-row-targets">
          {r.targets.map((h) => (
            <span key={h} style={{ display: 'block' }}>
              {hostText(h)}:{r.targetPorts.replace(/\s+/g, '')}
            </span>
          ))}
        </Text>
        {r.targets.length > 1 && (
          <Text fz="xs" c="dimmed">
            {pfText('targetsFailover', { n: r.targets.length })}
          </Text>
        )}
      </Table.Td>
      <Table.Td maw={260}>
        <Group gap={6} wrap="nowrap">
          <Badge color={STATE_COLOR[state]} variant="light" tt="none" data-testid="pf-status" data-state={state}>
            {pfText(`state.${state}`)}
          </Badge>
          {r.enable && (
            <Tooltip label={pfText('listenersHint')}>
              <Text fz="xs" c={s.listeners < s.listenersWanted ? 'red' : 'dimmed'} data-testid="pf-listeners" style={{ whiteSpace: 'nowrap' }}>
                {pfText('listeners', { v: f.listeners })}
              </Text>
            </Tooltip>
          )}
        </Group>
        {r.status.message && (
          <Text fz="xs" c={state === 'error' ? 'red' : 'dimmed'} style={{ wordBreak: 'break-word' }} data-testid="pf-status-message">
            {r.status.message}
          </Text>
        )}
      </Table.Td>
      <Table.Td data-testid="pf-figures">
        {quiet ? (
          <Text fz="xs" c="dimmed">
            {pfText('noTraffic')}
          </Text>
        ) : (
          <Stack gap={2}>
            <Text fz="xs" style={{ whiteSpace: 'nowrap' }}>
              <span data-testid="pf-fig-tcp" data-value={s.tcpConnections}>
                {pfText('tcpConns', { n: s.tcpConnections })}
              </span>
              {' · '}
              <span data-testid="pf-fig-udp" data-value={s.udpSessions}>
                {pfText('udpSessions', { n: s.udpSessions })}
              </span>
              {' · '}
              <span data-testid="pf-fig-total" data-value={s.totalConnections}>
                {pfText('totalConns', { n: s.totalConnections })}
              </span>
            </Text>
            <Text fz="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
              <Tooltip label={pfText('bytesInHint')}>
                <span data-testid="pf-fig-in" data-value={s.bytesIn}>
                  ↑ {pfText('bytesIn', { v: f.bytesIn })}
                </span>
              </Tooltip>
              {' · '}
              <Tooltip label={pfText('bytesOutHint')}>
                <span data-testid="pf-fig-out" data-value={s.bytesOut}>
                  ↓ {pfText('bytesOut', { v: f.bytesOut })}
                </span>
              </Tooltip>
            </Text>
            {f.refused > 0 && (
              <Text fz="xs" c="orange" style={{ whiteSpace: 'nowrap' }} data-testid="pf-fig-refused">
                {pfText('refused', { limit: s.refusedByLimit, filter: s.refusedByFilter })}
              </Text>
            )}
          </Stack>
        )}
      </Table.Td>
      <Table.Td>
        <Switch checked={r.enable} onChange={(e) => props.onToggle(e.currentTarget.checked)} aria-label={pfText('colEnable')} data-testid="pf-toggle" />
      </Table.Td>
      <Table.Td>
        <Group gap={6} wrap="nowrap">
          <Button size="xs" variant="light" onClick={props.onLog} data-testid="pf-log-open">
            {pfText('log')}
          </Button>
          <Button size="xs" variant="default" onClick={props.onEdit} data-testid="pf-edit">
            {pfText('editShort')}
          </Button>
          <ActionIcon variant="subtle" color="red" onClick={props.onDelete} aria-label={pfText('delete')} size="md" data-testid="pf-delete">
            ✕
          </ActionIcon>
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}
