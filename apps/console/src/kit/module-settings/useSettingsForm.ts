/** A module settings form: the module's fields and conversions, the kit's checking and saving. */
import type { RouteInput } from '@lucky/contracts';
import { call } from '../../api';
import { savingFrame } from '../form/FormFrame';
import type { FormProblem } from '../form/problems';
import { useSavingForm } from '../form/useSavingForm';
import type { RuleModule, SettingsOf, UniformRuleRoutes } from '../rule-list/ruleModule';

export function useSettingsForm<R extends UniformRuleRoutes, F>(opts: {
  rules: RuleModule<R>;
  initial: SettingsOf<R>;
  onClose: () => void;
  toForm: (settings: SettingsOf<R>) => F;
  toBody: (form: F) => SettingsOf<R>;
  check: (form: F) => FormProblem[];
}) {
  const { rules } = opts;
  const form = useSavingForm({
    initial: () => opts.toForm(opts.initial),
    check: opts.check,
    toBody: opts.toBody,
    send: (body: SettingsOf<R>) => call(rules.routes.putConfigure, { body } as unknown as RouteInput<R['putConfigure']>, { silent: true }),
    savedText: rules.text('settingsSaved'),
    invalidate: rules.queries.keys.all,
    onSaved: opts.onClose,
  });
  const ids = rules.testIds;
  const frame = savingFrame(form, opts.onClose, rules.text, { save: ids.settingsSave, problems: ids.settingsError, serverError: ids.settingsServerError });
  return { ...form, frame };
}
