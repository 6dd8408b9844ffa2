/**
 * A rule's log dialog: the rule's own log lines (polled), or tabs when the module shows more (an
 * access log, a history). The rule shown is the list's current row, so it follows the refreshes.
 */
import { Alert, Modal, Tabs, type ModalProps } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { formatTime } from '../form/values';
import { NARROW_QUERY } from '../rule-dialog/RuleDialog';
import type { RuleModule, RuleViewOf, UniformRuleRoutes } from '../rule-list/ruleModule';
import { LogLines } from './LogLines';

export interface LogTab<V> {
  value: string;
  label: string;
  render: (row: V) => ReactNode;
}

/** Lines as the engine wrote them; a line without its time gets the entry's. */
const withTime = (l: { log: string; timestamp: number }) => (/^\d{4}-\d\d-\d\d/.test(l.log) ? l.log : `${formatTime(l.timestamp)} ${l.log}`);

export function RuleLogLines<R extends UniformRuleRoutes>(props: { rules: RuleModule<R>; ruleKey: string; maxHeight?: string }) {
  const logs = useQuery(props.rules.queries.logs(props.ruleKey));
  if (logs.isError) return <Alert color="red">{logs.error.message}</Alert>;
  return (
    <LogLines
      lines={logs.data?.map(withTime)}
      loading={logs.isPending}
      emptyText={props.rules.text('noLogs')}
      testId={props.rules.testIds.logText}
      {...(props.maxHeight ? { maxHeight: props.maxHeight } : {})}
    />
  );
}

export function RuleLogDialog<R extends UniformRuleRoutes>(props: {
  rules: RuleModule<R>;
  rule: RuleViewOf<R> | null;
  onClose: () => void;
  size: ModalProps['size'];
  /** More than the rule's log: every tab, the rule's log among them (RuleLogLines); the first opens. */
  tabs?: LogTab<RuleViewOf<R>>[];
}) {
  const narrow = useMediaQuery(NARROW_QUERY);
  const row = props.rule;
  return (
    <Modal
      opened={row !== null}
      onClose={props.onClose}
      title={row ? props.rules.text('logTitle', { name: row.name }) : ''}
      size={props.size}
      fullScreen={narrow}
      data-testid={props.rules.testIds.log}
    >
      {row &&
        (props.tabs ? (
          <LogTabs tabs={props.tabs} row={row} testId={props.rules.testIds.logTab} />
        ) : (
          <RuleLogLines rules={props.rules} ruleKey={row.key} maxHeight="65vh" />
        ))}
    </Modal>
  );
}

function LogTabs<V>(props: { tabs: LogTab<V>[]; row: V; testId: (tab: string) => string }) {
  const [tab, setTab] = useState<string | null>(props.tabs[0]?.value ?? null);
  // Only the open tab is mounted, so only its data is polled.
  return (
    <Tabs value={tab} onChange={setTab} keepMounted={false}>
      <Tabs.List mb="sm">
        {props.tabs.map((t) => (
          <Tabs.Tab key={t.value} value={t.value} data-testid={props.testId(t.value)}>
            {t.label}
          </Tabs.Tab>
        ))}
      </Tabs.List>
      {props.tabs.map((t) => (
        <Tabs.Panel key={t.value} value={t.value}>
          {t.render(props.row)}
        </Tabs.Panel>
      ))}
    </Tabs>
  );
}
