/** The module settings: totals over all rules, the defaults a rule's blank limits follow, timeouts, logging. */
import { Divider, Group, Stack, Switch } from '@mantine/core';
import type { portforwardRoutes } from '@lucky/contracts';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import type { SettingsFormProps } from '../../kit/module-settings/SettingsDialog';
import { useSettingsForm } from '../../kit/module-settings/useSettingsForm';
import { checkSettings, fieldLabel, settingsToBody, settingsToForm, SETTINGS_NUMBERS } from './form';
import { pfText } from './i18n';
import { pfRules } from './ruleModule';

type NumberKey = (typeof SETTINGS_NUMBERS)[number];
const BOUNDS: Record<NumberKey, [number, number]> = {
  tcpMaxConnections: [0, 1_000_000],
  udpMaxSessions: [0, 1_000_000],
  ruleTcpMaxConnections: [0, 1_000_000],
  ruleUdpMaxSessions: [0, 1_000_000],
  udpSessionTimeout: [1, 86_400],
  udpPacketSize: [64, 65_507],
  tcpIdleTimeout: [0, 604_800],
  connectTimeout: [1, 120],
};

export function SettingsForm(props: SettingsFormProps<typeof portforwardRoutes>) {
  const f = useSettingsForm({ rules: pfRules, ...props, toForm: settingsToForm, toBody: settingsToBody, check: checkSettings });
  const b = bindFields(f.form, f.set, f.err);
  const num = (k: NumberKey, description?: string) => (
    <WholeNumberInput
      allowNegative={false}
      label={fieldLabel([k], pfText)}
      description={description ?? `${BOUNDS[k][0]}-${BOUNDS[k][1]}`}
      min={BOUNDS[k][0]}
      max={BOUNDS[k][1]}
      {...b.number(k)}
      data-testid={`pf-set-${k}`}
    />
  );
  return (
    <FormFrame {...f.frame} problemListTitle={pfText('formErrors')}>
      <Stack gap="sm">
        <Divider label={pfText('setGlobal')} labelPosition="left" />
        <Group grow align="flex-start">
          {num('tcpMaxConnections', pfText('zeroUnlimited'))}
          {num('udpMaxSessions', pfText('zeroUnlimited'))}
        </Group>
        <Divider label={pfText('setDefaults')} labelPosition="left" />
        <Group grow align="flex-start">
          {num('ruleTcpMaxConnections', pfText('zeroUnlimited'))}
          {num('ruleUdpMaxSessions', pfText('zeroUnlimited'))}
        </Group>
        <Group grow align="flex-start">
          {num('udpSessionTimeout')}
          {num('udpPacketSize')}
        </Group>
        <Group grow align="flex-start">
          {num('tcpIdleTimeout', `${pfText('zeroUnlimited')} · 0-604800`)}
          <div />
        </Group>
        <Divider label={pfText('setOther')} labelPosition="left" />
        <Group grow align="flex-start">
          {num('connectTimeout', `${pfText('set.connectTimeoutHint')} · 1-120`)}
          <Switch mt={28} label={pfText('set.logConnections')} description={pfText('set.logConnectionsHint')} {...b.check('logConnections')} data-testid="pf-set-logConnections" />
        </Group>
      </Stack>
    </FormFrame>
  );
}
