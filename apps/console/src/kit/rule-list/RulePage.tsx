/**
 * A module's rule screen: title bar (settings, the module's tools, add), the list with the
 * module's columns plus the switch and the actions (the module's own first, then log, edit,
 * delete), and the dialogs behind them. A module brings its columns and its forms.
 */
import { ActionIcon, Button, Group, Stack, Switch, Table, type ModalProps, type TableTdProps } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState, type ComponentType, type ReactNode } from 'react';
import { modulesQuery } from '../../api/queries';
import { PageTitle } from '../../shell/Shell';
import { SettingsDialog, type SettingsFormProps } from '../module-settings/SettingsDialog';
import { RuleDialog } from '../rule-dialog/RuleDialog';
import type { Editing, RuleFormProps } from '../rule-dialog/useRuleForm';
import { RuleLogDialog, type LogTab } from '../rule-log/RuleLogDialog';
import { ConfirmDelete } from './ConfirmDelete';
import type { RuleModule, RuleViewOf, UniformRuleRoutes } from './ruleModule';
import { RuleTableCard } from './RuleTableCard';
import { useRuleActions } from './useRuleActions';
import { TableHead } from '../table/TableHead';

export interface RuleColumn<V> {
  head: string;
  /** Static props of the column's cells (width, test id). */
  td?: TableTdProps & { 'data-testid'?: string };
  cell: (row: V) => ReactNode;
}

export function RulePage<R extends UniformRuleRoutes>(props: {
  rules: RuleModule<R>;
  columns: RuleColumn<RuleViewOf<R>>[];
  /** The table scrolls sideways below this width. */
  minWidth: number;
  /** More data attributes on a row. */
  rowProps?: (row: RuleViewOf<R>) => Record<`data-${string}`, string>;
  /** The module's own actions on a row, before log, edit and delete. */
  actions?: (row: RuleViewOf<R>) => ReactNode;
  /** The module's own buttons in the title bar, before add (each with its dialog). */
  tools?: (rows: RuleViewOf<R>[], enabled: boolean) => ReactNode;
  form: { size: ModalProps['size']; Form: ComponentType<RuleFormProps<R>> };
  log: { size: ModalProps['size']; tabs?: LogTab<RuleViewOf<R>>[] };
  settings?: { title: string; size: ModalProps['size']; Form: ComponentType<SettingsFormProps<R>> };
}) {
  const { rules } = props;
  const { text, testIds: ids } = rules;
  const modules = useQuery(modulesQuery());
  const names = rules.moduleNames ?? [rules.module];
  const enabled = modules.data ? modules.data.Modules.some((m) => names.includes(m)) : true;
  const list = useQuery({ ...rules.queries.list(), enabled });
  const [editing, setEditing] = useState<Editing<RuleViewOf<R>> | null>(null);
  const [logOf, setLogOf] = useState<string | null>(null);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const { toggle, remove, deleting, setDeleting } = useRuleActions(rules);

  const rows = ((list.data as { list?: RuleViewOf<R>[] } | undefined)?.list ?? []);
  // The log dialog follows the list's refreshes (states change while it is open).
  const logRow = logOf ? (rows.find((r) => r.key === logOf) ?? null) : null;

  return (
    <Stack data-testid={ids.page}>
      <PageTitle
        right={
          <Group gap="xs">
            {props.settings && (
              <Button variant="default" onClick={() => setSettingsOpen(true)} disabled={!enabled} data-testid={ids.settingsOpen}>
                {text('settings')}
              </Button>
            )}
            {props.tools?.(rows, enabled)}
            <Button onClick={() => setEditing({ key: null, saved: null })} disabled={!enabled} data-testid={ids.add}>
              {text('add')}
            </Button>
          </Group>
        }
      >
        {text('title')}
      </PageTitle>
      <RuleTableCard
        module={rules.module}
        enabled={enabled}
        loading={list.isPending}
        empty={rows.length === 0}
        emptyText={text('empty')}
        testPrefix={ids.list}
        minWidth={props.minWidth}
      >
        <TableHead titles={[...props.columns.map((c) => c.head), text('colEnable'), text('colActions')]} />
        <Table.Tbody>
          {rows.map((r) => (
            <Table.Tr key={r.key} data-testid={ids.row} data-key={r.key} {...props.rowProps?.(r)}>
              {props.columns.map((c) => (
                <Table.Td key={c.head} {...c.td}>
                  {c.cell(r)}
                </Table.Td>
              ))}
              <Table.Td>
                <Switch
                  checked={r.enable}
                  onChange={(e) => toggle.mutate({ key: r.key, enable: e.currentTarget.checked })}
                  aria-label={text('colEnable')}
                  data-testid={ids.toggle}
                />
              </Table.Td>
              <Table.Td>
                <Group gap={6} wrap="nowrap">
                  {props.actions?.(r)}
                  <Button size="xs" variant="light" onClick={() => setLogOf(r.key)} data-testid={ids.logOpen}>
                    {text('log')}
                  </Button>
                  <Button size="xs" variant="default" onClick={() => setEditing({ key: r.key, saved: r })} data-testid={ids.edit}>
                    {text('editShort')}
                  </Button>
                  <ActionIcon variant="subtle" color="red" onClick={() => setDeleting(r)} aria-label={text('delete')} size="md" data-testid={ids.delete}>
                    ✕
                  </ActionIcon>
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </RuleTableCard>

      <RuleDialog rules={rules} editing={editing} onClose={() => setEditing(null)} size={props.form.size} Form={props.form.Form} />
      <RuleLogDialog rules={rules} rule={logRow} onClose={() => setLogOf(null)} size={props.log.size} {...(props.log.tabs ? { tabs: props.log.tabs } : {})} />
      {props.settings && (
        <SettingsDialog
          rules={rules}
          title={props.settings.title}
          opened={settingsOpen}
          onClose={() => setSettingsOpen(false)}
          size={props.settings.size}
          Form={props.settings.Form}
        />
      )}
      <ConfirmDelete
        name={deleting?.name ?? null}
        text={text}
        loading={remove.isPending}
        onCancel={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate(deleting.key)}
        testId={ids.deleteConfirm}
      />
    </Stack>
  );
}
