/** The module settings: whether each server keeps an access log. */
import { Switch } from '@mantine/core';
import type { sftpserverRoutes } from '@lucky/contracts';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import type { SettingsFormProps } from '../../kit/module-settings/SettingsDialog';
import { useSettingsForm } from '../../kit/module-settings/useSettingsForm';
import { checkSettings, settingsToBody, settingsToForm } from './form';
import { sftpText } from './i18n';
import { sftpRules } from './ruleModule';

export function SettingsForm(props: SettingsFormProps<typeof sftpserverRoutes>) {
  const f = useSettingsForm({ rules: sftpRules, ...props, toForm: settingsToForm, toBody: settingsToBody, check: checkSettings });
  const b = bindFields(f.form, f.set, f.err);
  return (
    <FormFrame {...f.frame} problemListTitle={sftpText('formErrors')}>
      <Switch label={sftpText('set.accessLog')} description={sftpText('set.accessLogHint')} {...b.check('accessLog')} data-testid="sftp-set-accessLog" />
    </FormFrame>
  );
}
