/**
 * A module's rule screen: title bar (settings, the module's tools, add), the list with the
 * module's columns plus the switch and the actions (the module's own first, then log, edit,
 * delete), and the dialogs behind them. A module brings its columns and its forms; a rule another
 * module made (its owner) is marked under its name.
 */
import { ActionIcon, Button, Group, Stack, Switch, Table, type TableTdProps } from '@mantine/core';
import { useState, type ComponentType, type ReactNode } from 'react';
import { PageTitle } from '../../shell/Shell';
import { SettingsDialog, type SettingsFormProps } from '../module-settings/SettingsDialog';
import { RuleDialog } from '../rule-dialog/RuleDialog';
import type { Editing, RuleFormProps } from '../rule-dialog/useRuleForm';
import { RuleLogDialog, type LogTab } from '../rule-log/RuleLogDialog';
import { TableHead } from '../table/TableHead';
import { ConfirmDelete } from './ConfirmDelete';
import { RuleOwnerBadge } from './RuleCells';
import { DEFAULT_LAYOUT, type RuleModule, type RuleViewOf, type UniformRuleRoutes } from './ruleModule';
import { RuleTableCard } from './RuleTableCard';
import { useRuleActions } from './useRuleActions';
import { useRuleRows } from './useRuleRows';

export interface RuleColumn<V> {
  head: string;
  /** Static props of the column's cells (width, test id). */
  td?: TableTdProps & { 'data-testid'?: string };
  cell: (row: V) => ReactNode;
}

export function RulePage<R extends UniformRuleRoutes>(props: {
  rules: RuleModule<R>;
  columns: RuleColumn<RuleViewOf<R>>[];
  /** The add/edit form. */
  Form: ComponentType<RuleFormProps<R>>;
  /** The module settings form, when the module has settings. */
  Settings?: ComponentType<SettingsFormProps<R>>;
  /** The module's own actions on a row, before log, edit and delete. */
  actions?: (row: RuleViewOf<R>) => ReactNode;
  /** The module's own buttons in the title bar, before add (each with its dialog). */
  tools?: (rows: RuleViewOf<R>[], enabled: boolean) => ReactNode;
  /** More than the rule's own log in the log dialog (see RuleLogDialog). */
  logTabs?: LogTab<RuleViewOf<R>>[];
  /** More data attributes on a row (each row has its key and name as data-key and data-name). */
  rowProps?: (row: RuleViewOf<R>) => Record<`data-${string}`, string>;
  /** What the module shows under the list (its own sections), once the module is on. */
  below?: (rows: RuleViewOf<R>[], enabled: boolean) => ReactNode;
  /** What the module shows above the list (a filter of long lists). */
  above?: (rows: RuleViewOf<R>[], enabled: boolean) => ReactNode;
  /** The rows the table shows (a filter, a page of a long list); all of them when absent. */
  shown?: (rows: RuleViewOf<R>[]) => RuleViewOf<R>[];
}) {
  const { rules } = props;
  const layout = { ...DEFAULT_LAYOUT, ...rules.layout };
  const { text, testIds: ids } = rules;
  const { enabled, loading, rows } = useRuleRows(rules);
  const [editing, setEditing] = useState<Editing<RuleViewOf<R>> | null>(null);
  const [logOf, setLogOf] = useState<string | null>(null);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const { toggle, remove, deleting, setDeleting, asking, setAsking } = useRuleActions(rules);
  // The log dialog follows the list's refreshes (states change while it is open).
  const logRow = logOf ? (rows.find((r) => r.key === logOf) ?? null) : null;

  return (
    <Stack data-testid={ids.page}>
      <PageTitle
        right={
          <Group gap="xs">
            {props.Settings && (
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
      {props.above?.(rows, enabled)}
      <RuleTableCard
        module={rules.module}
        enabled={enabled}
        loading={loading}
        empty={rows.length === 0}
        emptyText={text('empty')}
        testPrefix={ids.list}
        minWidth={layout.minWidth}
      >
        <TableHead titles={[...props.columns.map((c) => c.head), text('colEnable'), text('colActions')]} />
        <Table.Tbody>
          {(props.shown ? props.shown(rows) : rows).map((r) => (
            <Table.Tr key={r.key} data-testid={ids.row} data-key={r.key} data-name={r.name} {...props.rowProps?.(r)}>
              {props.columns.map((c, i) => (
                <Table.Td key={c.head} {...c.td}>
                  {c.cell(r)}
                  {/* Under the name (every module's first column), for every module alike. */}
                  {i === 0 && <RuleOwnerBadge owner={r.owner} text={text} testId={ids.owner} />}
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
      {props.below?.(rows, enabled)}

      <RuleDialog rules={rules} editing={editing} onClose={() => setEditing(null)} size={layout.form} Form={props.Form} />
      <RuleLogDialog rules={rules} rule={logRow} onClose={() => setLogOf(null)} size={layout.log} {...(props.logTabs ? { tabs: props.logTabs } : {})} />
      {props.Settings && (
        <SettingsDialog rules={rules} opened={settingsOpen} onClose={() => setSettingsOpen(false)} size={layout.settings} Form={props.Settings} />
      )}
      <ConfirmDelete
        name={deleting?.name ?? null}
        text={text}
        loading={remove.isPending}
        onCancel={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate({ key: deleting.key, name: deleting.name })}
        testId={ids.deleteConfirm}
      />
      <ConfirmDelete
        name={asking?.name ?? null}
        message={asking?.message}
        messageTestId={ids.deleteAsked}
        text={text}
        loading={remove.isPending}
        onCancel={() => setAsking(null)}
        onConfirm={() => asking && remove.mutate({ key: asking.key, name: asking.name, confirm: true })}
        testId={ids.deleteForce}
      />
    </Stack>
  );
}
