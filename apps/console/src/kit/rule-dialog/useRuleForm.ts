/**
 * A rule's add/edit form: the module's own fields and conversions, the kit's checking, saving
 * (create or update), tabs that open on the first problem, and the frame's props.
 */
import type { RouteInput } from '@lucky/contracts';
import { useRef, useState } from 'react';
import { call } from '../../api';
import { savingFrame } from '../form/FormFrame';
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

/** How a module's form holds a rule: a new one, one from the list, and back to what the API takes. */
export interface RuleFormSpec<R extends UniformRuleRoutes, F, T extends string> {
  empty: () => F;
  toForm: (saved: RuleViewOf<R>) => F;
  toInput: (form: F) => RuleInputOf<R>;
  check: (form: F) => FormProblem[];
  /** Forms with tabs: the first one, and the tab that holds a problem's path. */
  tabs?: { first: T; of: (path: string) => T };
  onRefused?: (problems: FormProblem[]) => void;
}

export function useRuleForm<R extends UniformRuleRoutes, F, T extends string = never>(rules: RuleModule<R>, page: RuleFormProps<R>, spec: RuleFormSpec<R, F, T>) {
  const { editing, onClose } = page;
  const [tab, setTab] = useState<T | undefined>(spec.tabs?.first);
  const rootRef = useRef<HTMLDivElement>(null);
  const form = useSavingForm({
    initial: () => (editing.saved ? spec.toForm(editing.saved) : spec.empty()),
    check: spec.check,
    toBody: spec.toInput,
    send: (body: RuleInputOf<R>) =>
      editing.key
        ? call(rules.routes.update, { params: { key: editing.key }, body } as unknown as RouteInput<R['update']>, { silent: true })
        : call(rules.routes.create, { body } as unknown as RouteInput<R['create']>, { silent: true }),
    savedText: rules.text('saved'),
    invalidate: rules.queries.keys.rules,
    onSaved: onClose,
    onRefused: (found) => {
      if (spec.tabs) setTab(spec.tabs.of(found[0]!.path));
      spec.onRefused?.(found);
    },
  });
  useScrollToProblem(rootRef, form.attempt, [tab]);
  const ids = rules.testIds;
  const frame = { ...savingFrame(form, onClose, rules.text, { save: ids.save, problems: ids.formError, serverError: ids.formServerError }), rootRef, gap: 'md' as const };
  /** Props for FormTabs: the open tab, problem marks and test ids. */
  const tabsProps = spec.tabs && { value: tab as T, onChange: setTab as (t: T) => void, problems: form.problems, tabOf: spec.tabs.of, testId: ids.tab };
  return { ...form, frame, tabsProps };
}
