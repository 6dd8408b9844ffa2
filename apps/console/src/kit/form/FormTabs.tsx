/** A form's tabs; a tab holding a problem shows it in red even when another tab is open. */
import { Tabs } from '@mantine/core';
import type { ReactNode } from 'react';
import type { FormProblem } from './problems';

export interface FormTab<T extends string> {
  value: T;
  label: string;
  content: ReactNode;
}

const problemTabProps = (hasProblem: boolean) => (hasProblem ? { color: 'red', c: 'red', fw: 600, rightSection: <span aria-hidden>●</span> } : {});

export function FormTabs<T extends string>(props: {
  value: T;
  onChange: (tab: T) => void;
  tabs: FormTab<T>[];
  problems: readonly FormProblem[];
  /** The tab that holds a problem's path. */
  tabOf: (path: string) => T;
  testId: (tab: T) => string;
}) {
  return (
    <Tabs value={props.value} onChange={(v) => v && props.onChange(v as T)}>
      <Tabs.List mb="sm">
        {props.tabs.map((t) => (
          <Tabs.Tab key={t.value} value={t.value} {...problemTabProps(props.problems.some((p) => props.tabOf(p.path) === t.value))} data-testid={props.testId(t.value)}>
            {t.label}
          </Tabs.Tab>
        ))}
      </Tabs.List>
      {props.tabs.map((t) => (
        <Tabs.Panel key={t.value} value={t.value}>
          {t.content}
        </Tabs.Panel>
      ))}
    </Tabs>
  );
}
