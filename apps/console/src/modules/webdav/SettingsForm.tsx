/** The module settings: how many access log lines each server keeps. */
import type { webdavRoutes } from '@lucky/contracts';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import type { SettingsFormProps } from '../../kit/module-settings/SettingsDialog';
import { useSettingsForm } from '../../kit/module-settings/useSettingsForm';
import { checkSettings, settingsToBody, settingsToForm } from './form';
import { webdavText } from './i18n';
import { webdavRules } from './ruleModule';

export function SettingsForm(props: SettingsFormProps<typeof webdavRoutes>) {
  const f = useSettingsForm({ rules: webdavRules, ...props, toForm: settingsToForm, toBody: settingsToBody, check: checkSettings });
  const b = bindFields(f.form, f.set, f.err);
  return (
    <FormFrame {...f.frame} problemListTitle={webdavText('formErrors')}>
      <WholeNumberInput
        label={webdavText('set.accessLogLines')}
        description={webdavText('set.accessLogLinesHint')}
        min={0}
        max={1000}
        allowNegative={false}
        {...b.number('accessLogLines')}
        data-testid="webdav-set-accessLogLines"
      />
    </FormFrame>
  );
}
