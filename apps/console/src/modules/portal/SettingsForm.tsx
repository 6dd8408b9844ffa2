/** The module settings: the parent domain one sign-in covers, and how long a session lasts. */
import { TextInput } from '@mantine/core';
import type { portalRoutes } from '@lucky/contracts';
import { mono } from '../../kit/fields/styles';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import type { SettingsFormProps } from '../../kit/module-settings/SettingsDialog';
import { useSettingsForm } from '../../kit/module-settings/useSettingsForm';
import { checkSettings, settingsToBody, settingsToForm } from './form';
import { portalText as t } from './i18n';
import { portalRules } from './ruleModule';

export function SettingsForm(props: SettingsFormProps<typeof portalRoutes>) {
  const f = useSettingsForm({ rules: portalRules, ...props, toForm: settingsToForm, toBody: settingsToBody, check: checkSettings });
  const b = bindFields(f.form, f.set, f.err);
  return (
    <FormFrame {...f.frame} problemsOnFieldsOnly>
      <TextInput
        label={t('set.cookieDomain')}
        description={t('set.cookieDomainHint')}
        placeholder="home.example.com"
        {...b.text('cookieDomain')}
        styles={mono}
        data-testid="portal-set-cookieDomain"
      />
      <WholeNumberInput label={t('set.idleMinutes')} description={t('set.idleMinutesHint')} min={1} max={43_200} {...b.number('idleMinutes')} data-testid="portal-set-idleMinutes" />
      <WholeNumberInput label={t('set.absoluteHours')} description={t('set.absoluteHoursHint')} min={1} max={8_760} {...b.number('absoluteHours')} data-testid="portal-set-absoluteHours" />
    </FormFrame>
  );
}
