/**
 * A rule's add/edit form: the module's own fields and conversions, the kit's checking, saving
 * (create or update), tabs that open on the first problem, and the frame's props.
 */
import type { RouteInput } from '@lucky/contracts';
import { useRef, useState } from 'react';
import { call } from '../../api';
import type { FormFrameProps } from '../form/FormFrame';
import type { FormProblem } from '../form/problems';
import { useScrollToProblem } from '../form/scrollToProblem';
import { useSavingForm } from '../form/useSavingForm';
import type { RuleInputOf, RuleModule, RuleViewOf, UniformRuleRoutes } from '../rule-list/ruleModule';

export interface Editing<V> {
  /** The rule being edited, null for a new one. */
  key: string | null;
  /** The rule as listed (secrets masked, passwords blank), null for a new one. */
  saved: V | null;
}

/** What a module's form component gets from the rule page. */
export interface RuleFormProps<R extends UniformRuleRoutes> {
  editing: Editing<RuleViewOf<R>>;
  onClose: () => void;
}

export function useRuleForm<R extends UniformRuleRoutes, F, T extends string = never>(opts: {
  rules: RuleModule<R>;
  editing: Editing<RuleViewOf<R>>;
  onClose: () => void;
  toForm: (saved: RuleViewOf<R> | null) => F;
  toInput: (form: F) => RuleInputOf<R>;
  check: (form: F) => FormProblem[];
  /** Forms with tabs: the first one, and the tab that holds a problem's path. */
  tabs?: { first: T; of: (path: string) => T };
  onRefused?: (problems: FormProblem[]) => void;
}) {
  const { rules, editing } = opts;
  const [tab, setTab] = useState<T | undefined>(opts.tabs?.first);
  const rootRef = useRef<HTMLDivElement>(null);
  const form = useSavingForm({
    initial: () => opts.toForm(editing.saved),
    check: opts.check,
    toBody: opts.toInput,
    send: (body: RuleInputOf<R>) =>
      editing.key
        ? call(rules.routes.update, { params: { key: editing.key }, body } as unknown as RouteInput<R['update']>, { silent: true })
        : call(rules.routes.create, { body } as unknown as RouteInput<R['create']>, { silent: true }),
    savedText: rules.text('saved'),
    invalidate: rules.queries.keys.rules,
    onSaved: opts.onClose,
    onRefused: (found) => {
      if (opts.tabs) setTab(opts.tabs.of(found[0]!.path));
      opts.onRefused?.(found);
    },
  });
  useScrollToProblem(rootRef, form.attempt, [tab]);
  const ids = rules.testIds;
  const frame: Omit<FormFrameProps, 'children'> = {
    onSave: form.submit,
    onCancel: opts.onClose,
    saving: form.saving,
    cancelText: rules.text('cancel'),
    saveText: rules.text('save'),
    saveTestId: ids.save,
    problems: form.problems,
    problemsTestId: ids.formError,
    serverError: form.serverError,
    serverErrorTestId: ids.formServerError,
    rootRef,
    gap: 'md',
  };
  /** Props for FormTabs: the open tab, problem marks and test ids. */
  const tabsProps = opts.tabs && {
    value: tab as T,
    onChange: setTab as (t: T) => void,
    problems: form.problems,
    tabOf: opts.tabs.of,
    testId: ids.tab,
  };
  return { ...form, frame, tabsProps };
}
