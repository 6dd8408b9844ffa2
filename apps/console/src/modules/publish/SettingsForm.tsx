/** The module settings: how often every service's links are looked at. */
import type { publishRoutes } from '@lucky/contracts';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import type { SettingsFormProps } from '../../kit/module-settings/SettingsDialog';
import { useSettingsForm } from '../../kit/module-settings/useSettingsForm';
import { checkSettings, settingsToBody, settingsToForm } from './form';
import { publishText as t } from './i18n';
import { publishRules } from './ruleModule';

export function SettingsForm(props: SettingsFormProps<typeof publishRoutes>) {
  const f = useSettingsForm({ rules: publishRules, ...props, toForm: settingsToForm, toBody: settingsToBody, check: checkSettings });
  const b = bindFields(f.form, f.set, f.err);
  return (
    <FormFrame {...f.frame} problemsOnFieldsOnly>
      <WholeNumberInput label={t('set.checkInterval')} description={t('set.checkIntervalHint')} min={5} max={3600} {...b.number('checkInterval')} data-testid="publish-set-checkInterval" />
    </FormFrame>
  );
}
