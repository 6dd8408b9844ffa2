/** The module settings: whether each server keeps an access log. */
import { Switch } from '@mantine/core';
import type { ftpserverRoutes } from '@lucky/contracts';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import type { SettingsFormProps } from '../../kit/module-settings/SettingsDialog';
import { useSettingsForm } from '../../kit/module-settings/useSettingsForm';
import { checkSettings, settingsToBody, settingsToForm } from './form';
import { ftpText } from './i18n';
import { ftpRules } from './ruleModule';

export function SettingsForm(props: SettingsFormProps<typeof ftpserverRoutes>) {
  const f = useSettingsForm({ rules: ftpRules, ...props, toForm: settingsToForm, toBody: settingsToBody, check: checkSettings });
  const b = bindFields(f.form, f.set, f.err);
  return (
    <FormFrame {...f.frame} problemListTitle={ftpText('formErrors')}>
      <Switch label={ftpText('set.accessLog')} description={ftpText('set.accessLogHint')} {...b.check('accessLog')} data-testid="ftp-set-accessLog" />
    </FormFrame>
  );
}
