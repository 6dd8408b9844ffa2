/** The module settings: how often devices are polled, how long a poll may take, how many at once, when a certificate counts as expiring. */
import { Group, Stack } from '@mantine/core';
import type { wanjiRoutes } from '@lucky/contracts';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import { HINT_BELOW } from '../../kit/fields/styles';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import type { SettingsFormProps } from '../../kit/module-settings/SettingsDialog';
import { useSettingsForm } from '../../kit/module-settings/useSettingsForm';
import { checkSettings, settingsToBody, settingsToForm } from './form';
import { wanjiText } from './i18n';
import { wanjiRules } from './ruleModule';

export function SettingsForm(props: SettingsFormProps<typeof wanjiRoutes>) {
  const f = useSettingsForm({ rules: wanjiRules, ...props, toForm: settingsToForm, toBody: settingsToBody, check: checkSettings });
  const b = bindFields(f.form, f.set, f.err);
  return (
    <FormFrame {...f.frame}>
      <Stack gap="sm">
        <Group grow align="flex-start">
          <WholeNumberInput label={wanjiText('field.interval')} description="5-3600" min={5} max={3600} {...b.number('interval')} inputWrapperOrder={HINT_BELOW} data-testid="wanji-set-interval" />
          <WholeNumberInput label={wanjiText('field.timeout')} description="1-60" min={1} max={60} {...b.number('timeout')} inputWrapperOrder={HINT_BELOW} data-testid="wanji-set-timeout" />
        </Group>
        <Group grow align="flex-start">
          <WholeNumberInput label={wanjiText('field.concurrency')} description="1-64" min={1} max={64} {...b.number('concurrency')} inputWrapperOrder={HINT_BELOW} data-testid="wanji-set-concurrency" />
          <WholeNumberInput label={wanjiText('field.expiryDays')} description="1-365" min={1} max={365} {...b.number('expiryDays')} inputWrapperOrder={HINT_BELOW} data-testid="wanji-set-expiryDays" />
        </Group>
      </Stack>
    </FormFrame>
  );
}
