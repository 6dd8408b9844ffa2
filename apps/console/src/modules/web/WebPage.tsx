/** Web services: rule list (listen, engine status, live figures, switch), add/edit, logs, batch domain replace, settings. */
import { ActionIcon, Anchor, Badge, Button, Group, Stack, Switch, Table, Text, Tooltip } from '@mantine/core';
import { webRoutes } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { modulesQuery } from '../../api/queries';
import { ConfirmDelete, RuleTableCard } from '../../shell/RuleScreen';
import { useRuleActions } from '../../shell/useRuleActions';
import { PageTitle } from '../../shell/Shell';
import { ReplaceModal, SettingsModal } from './Dialogs';
import { codeColor, codeList, figuresText, listenText, openUrl, ruleDomains, STATE_COLOR, type WebRow } from './form';
import { webText } from './i18n';
import { webKeys, webRulesQuery } from './queries';
import { RuleFormModal, type Editing } from './RuleForm';
import { RuleLogModal } from './RuleLog';

/** The daemon's module list names this module `reverseproxy` (spec section 2); `web` is accepted too. */
const MODULE_NAMES = ['reverseproxy', 'web'];

export function WebPage() {
  const modules = useQuery(modulesQuery());
  const enabled = modules.data ? modules.data.Modules.some((m) => MODULE_NAMES.includes(m)) : true;
  const list = useQuery({ ...webRulesQuery(), enabled });
  const [editing, setEditing] = useState<Editing | null>(null);
  const [logOf, setLogOf] = useState<string | null>(null);
  const [replaceOpen, setReplaceOpen] = useState(false);
  const [settingsOpen, setSettingsOpen] = useState(false);

  const { toggle, remove, deleting, setDeleting } = useRuleActions<WebRow>({
    routes: webRoutes,
    listKey: webKeys.rules,
    afterDelete: webKeys.all,
    deletedText: webText('deleted'),
  });


  const rules = (list.data?.list ?? []) as unknown as WebRow[];
  const logRule = logOf ? (rules.find((r) => r.key === logOf) ?? null) : null;
  const pageHost = typeof window !== 'undefined' ? window.location.hostname : 'localhost';

  return (
    <Stack data-testid="web-page">
      <PageTitle
        right={
          <Group gap="xs">
            <Button variant="default" onClick={() => setSettingsOpen(true)} disabled={!enabled} data-testid="web-settings-open">
              {webText('settings')}
            </Button>
            <Button variant="default" onClick={() => setReplaceOpen(true)} disabled={!enabled || rules.length === 0} data-testid="web-replace-open">
              {webText('replace')}
            </Button>
            <Button onClick={() => setEditing({ key: null, saved: null })} disabled={!enabled} data-testid="web-add">
              {webText('add')}
            </Button>
          </Group>
        }
      >
        {webText('title')}
      </PageTitle>
      <RuleTableCard
        module="web"
        enabled={enabled}
        loading={list.isPending}
        empty={rules.length === 0}
        emptyText={webText('empty')}
        testPrefix="web"
        minWidth={1000}
      >
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{webText('colName')}</Table.Th>
            <Table.Th>{webText('colListen')}</Table.Th>
            <Table.Th>{webText('colStatus')}</Table.Th>
            <Table.Th>{webText('colFigures')}</Table.Th>
            <Table.Th>{webText('colEnable')}</Table.Th>
            <Table.Th>{webText('colActions')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rules.map((r) => (
            <RuleRow
              key={r.key}
              r={r}
              pageHost={pageHost}
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
      <ReplaceModal opened={replaceOpen} onClose={() => setReplaceOpen(false)} rules={rules} />
      <SettingsModal opened={settingsOpen} onClose={() => setSettingsOpen(false)} />

      <ConfirmDelete
        opened={deleting !== null}
        title={webText('deleteTitle')}
        question={webText('deleteConfirm', { name: deleting?.name ?? '' })}
        deleteText={webText('delete')}
        loading={remove.isPending}
        onCancel={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate(deleting.key)}
        testId="web-delete-confirm"
      />
    </Stack>
  );
}

function RuleRow(props: { r: WebRow; pageHost: string; onToggle: (v: boolean) => void; onLog: () => void; onEdit: () => void; onDelete: () => void }) {
  const { r } = props;
  const domains = ruleDomains(r);
  const f = figuresText(r.figures);
  const codes = codeList(r.figures.codes);
  const state = r.status.state;
  return (
    <Table.Tr data-testid="web-row" data-key={r.key}>
      <Table.Td maw={260}>
        <Text fw={500} fz="sm" data-testid="web-row-name">
          {r.name}
        </Text>
        <Text fz="xs" c="dimmed">
          {webText('subRulesCount', { n: r.subRules.length })} · {webText(`type.${r.defaultService.type}`)}
        </Text>
        {domains.length > 0 && (
          <Text fz="xs" c="dimmed" truncate="end" title={domains.join('\n')} style={{ fontFamily: 'monospace' }} data-testid="web-row-domains">
            {domains.slice(0, 2).join(', ')}
            {domains.length > 2 ? ` ${webText('domainsMore', { n: domains.length - 2 })}` : ''}
          </Text>
        )}
        {r.note && (
          <Text fz="xs" c="dimmed" truncate="end">
            {r.note}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <Group gap={4} wrap="nowrap">
          <Badge size="xs" variant="outline" tt="none">
            {r.network}
          </Badge>
          <Badge size="xs" variant="outline" color={r.protocol === 'https' ? 'teal' : 'gray'} tt="none">
            {r.protocol}
          </Badge>
        </Group>
        <Anchor
          href={openUrl(r, props.pageHost)}
          target="_blank"
          rel="noreferrer"
          fz="sm"
          style={{ fontFamily: 'monospace', whiteSpace: 'nowrap' }}
          title={webText('open')}
          data-testid="web-row-listen"
        >
          {listenText(r)}
        </Anchor>
        {r.firewallAllow && r.firewall && (
          <Text fz="xs" c="dimmed" maw={220} data-testid="web-row-firewall">
            {webText('firewallNote', { note: r.firewall })}
          </Text>
        )}
      </Table.Td>
      <Table.Td maw={260}>
        <Badge color={STATE_COLOR[state]} variant="light" tt="none" data-testid="web-status" data-state={state}>
          {webText(`state.${state}`)}
        </Badge>
        {r.status.message && (
          <Text fz="xs" c={state === 'error' ? 'red' : 'dimmed'} style={{ wordBreak: 'break-word' }} data-testid="web-status-message">
            {r.status.message}
          </Text>
        )}
      </Table.Td>
      <Table.Td data-testid="web-figures">
        {r.figures.requests === 0 && r.figures.connections === 0 ? (
          <Text fz="xs" c="dimmed">
            {webText('noRequests')}
          </Text>
        ) : (
          <Stack gap={2}>
            <Text fz="xs" style={{ whiteSpace: 'nowrap' }}>
              <span data-testid="web-fig-requests" data-value={r.figures.requests}>
                {webText('requests', { n: f.requests })}
              </span>
              {' · '}
              <span data-testid="web-fig-connections">{webText('connections', { n: f.connections })}</span>
            </Text>
            <Text fz="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
              <span data-testid="web-fig-in">↓ {webText('bytesIn', { v: f.bytesIn })}</span>
              {' · '}
              <span data-testid="web-fig-out">↑ {webText('bytesOut', { v: f.bytesOut })}</span>
            </Text>
            {codes.length > 0 && (
              <Group gap={4}>
                {codes.slice(0, 6).map(([code, n]) => (
                  <Tooltip key={code} label={code === '0' ? webText('codeClosed') : code}>
                    <Badge size="xs" variant="light" color={codeColor(code)} tt="none" data-testid="web-fig-code" data-code={code}>
                      {code === '0' ? '—' : code}: {n}
                    </Badge>
                  </Tooltip>
                ))}
              </Group>
            )}
          </Stack>
        )}
      </Table.Td>
      <Table.Td>
        <Switch checked={r.enable} onChange={(e) => props.onToggle(e.currentTarget.checked)} aria-label={webText('colEnable')} data-testid="web-toggle" />
      </Table.Td>
      <Table.Td>
        <Group gap={6} wrap="nowrap">
          <Button size="xs" variant="light" onClick={props.onLog} data-testid="web-log-open">
            {webText('log')}
          </Button>
          <Button size="xs" variant="default" onClick={props.onEdit} data-testid="web-edit">
            {webText('edit')}
          </Button>
          <ActionIcon variant="subtle" color="red" onClick={props.onDelete} aria-label={webText('delete')} size="md" data-testid="web-delete">
            ✕
          </ActionIcon>
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}
