/** The module settings: the STUN servers and keepalive rules fall back on, and how many log lines a rule shows. */
import { Group, Stack, TextInput } from '@mantine/core';
import type { stunRoutes } from '@lucky/contracts';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import { LinesInput } from '../../kit/fields/LinesInput';
import { HINT_BELOW, mono } from '../../kit/fields/styles';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import type { SettingsFormProps } from '../../kit/module-settings/SettingsDialog';
import { useSettingsForm } from '../../kit/module-settings/useSettingsForm';
import { checkSettings, settingsToBody, settingsToForm } from './form';
import { stunText } from './i18n';
import { stunRules } from './ruleModule';

export function SettingsForm(props: SettingsFormProps<typeof stunRoutes>) {
  const f = useSettingsForm({ rules: stunRules, ...props, toForm: settingsToForm, toBody: settingsToBody, check: checkSettings });
  const b = bindFields(f.form, f.set, f.err);
  return (
    <FormFrame {...f.frame} problemListTitle={stunText('formErrors')}>
      <Stack gap="sm">
        <LinesInput label={stunText('set.stunServers')} description={stunText('set.stunServersHint')} withAsterisk {...b.text('stunServers')} data-testid="stun-set-stunServers" />
        <TextInput label={stunText('set.keepaliveUrl')} description={stunText('set.keepaliveUrlHint')} {...b.text('keepaliveUrl')} styles={mono} data-testid="stun-set-keepaliveUrl" />
        <Group grow align="flex-start">
          <WholeNumberInput label={stunText('set.keepaliveInterval')} description="5-3600" min={5} max={3600} {...b.number('keepaliveInterval')} inputWrapperOrder={HINT_BELOW} data-testid="stun-set-keepaliveInterval" />
          <WholeNumberInput label={stunText('set.logLines')} description="1-64" min={1} max={64} {...b.number('logLines')} inputWrapperOrder={HINT_BELOW} data-testid="stun-set-logLines" />
        </Group>
      </Stack>
    </FormFrame>
  );
}
