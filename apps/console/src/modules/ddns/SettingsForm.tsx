/** Module settings: detection interval (presets or custom), first-check delay, concurrency, global webhook. */
import { Fieldset, Group, Select } from '@mantine/core';
import { DDNS_INTERVAL_PRESETS, type ddnsRoutes } from '@lucky/contracts';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import { HINT_BELOW } from '../../kit/fields/styles';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import type { SettingsFormProps } from '../../kit/module-settings/SettingsDialog';
import { useSettingsForm } from '../../kit/module-settings/useSettingsForm';
import { checkSettings, configureToForm, formToConfigure, intervalPresetLabel } from './form';
import { ddnsText } from './i18n';
import { ddnsRules } from './ruleModule';
import { WebhookEditor } from './WebhookEditor';

/** The global webhook has no task of its own to take these from. */
const GLOBAL_WEBHOOK_CALL = { httpTimeout: 10, skipVerify: false };

export function SettingsForm(props: SettingsFormProps<typeof ddnsRoutes>) {
  const f = useSettingsForm({ rules: ddnsRules, ...props, toForm: configureToForm, toBody: formToConfigure, check: checkSettings });
  const { form, err } = f;
  const b = bindFields(form, f.set, err);
  const custom = form.intervalChoice === 'custom';
  const intervalOptions = [
    ...DDNS_INTERVAL_PRESETS.map((s) => {
      const l = intervalPresetLabel(s);
      return { value: String(s), label: ddnsText(l.id, { n: l.n }) };
    }),
    { value: 'custom', label: ddnsText('intervalCustom') },
  ];
  return (
    <FormFrame {...f.frame}>
      <Group grow align="flex-start">
        <Select
          label={ddnsText('interval')}
          description={ddnsText('intervalHint')}
          data={intervalOptions}
          value={form.intervalChoice}
          allowDeselect={false}
          onChange={(v) => v && f.set({ intervalChoice: v, ...(v !== 'custom' ? { interval: Number(v) } : {}) })}
          error={custom ? undefined : err('interval')}
          data-testid="ddns-set-interval"
          inputWrapperOrder={HINT_BELOW}
        />
        {custom && (
          <WholeNumberInput label={ddnsText('intervalCustomValue')} min={30} max={3600} {...b.number('interval')} data-testid="ddns-set-interval-custom" inputWrapperOrder={HINT_BELOW} />
        )}
      </Group>
      <Group grow align="flex-start">
        <WholeNumberInput
          label={ddnsText('firstDelay')}
          description={ddnsText('firstDelayHint')}
          min={0}
          max={3600}
          {...b.number('firstDelay')}
          data-testid="ddns-set-firstdelay"
          inputWrapperOrder={HINT_BELOW}
        />
        <WholeNumberInput label={ddnsText('concurrency')} min={1} max={256} {...b.number('concurrency')} data-testid="ddns-set-concurrency" inputWrapperOrder={HINT_BELOW} />
      </Group>
      <Fieldset legend={ddnsText('globalWebhook')}>
        <WebhookEditor value={form.webhook} onChange={(webhook) => f.set({ webhook })} errorAt={(field) => err(`webhook.${field}`)} customized {...GLOBAL_WEBHOOK_CALL} testId="ddns-set-webhook" />
      </Fieldset>
    </FormFrame>
  );
}
