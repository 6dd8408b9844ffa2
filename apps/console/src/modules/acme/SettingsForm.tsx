/**
 * Module settings: how often expiry is looked at, when a certificate not renewed is announced, where
 * automatic certificates are ordered (the rule form's CA part), and the webhook with its events.
 */
import { Checkbox, Fieldset, Group, Stack, Text } from '@mantine/core';
import { acmeRoutes, ZAcmeEvent, ZAcmeWebhookTestRequest, type RouteBody, type Webhook } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { call } from '../../api';
import { routeQuery } from '../../api/routeQuery';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import { HINT_BELOW } from '../../kit/fields/styles';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import type { SettingsFormProps } from '../../kit/module-settings/SettingsDialog';
import { useSettingsForm } from '../../kit/module-settings/useSettingsForm';
import { WebhookEditor } from '../../kit/webhook/WebhookEditor';
import { CaFields } from './CaFields';
import { acmeText } from './i18n';
import { acmeRules } from './ruleModule';
import { checkSettings, settingsToBody, settingsToForm, type AutoForm } from './settings';

type TestBody = RouteBody<typeof acmeRoutes.webhookTest>;
const choicesQuery = () => routeQuery(['acme', 'choices'], acmeRoutes.choices, { staleTime: 60_000 });

export function SettingsForm(props: SettingsFormProps<typeof acmeRoutes>) {
  const f = useSettingsForm({ rules: acmeRules, ...props, toForm: settingsToForm, toBody: settingsToBody, check: checkSettings });
  const { form, err } = f;
  const b = bindFields(form, f.set, err);
  const setAuto = (patch: Partial<AutoForm>) => f.set({ auto: { ...form.auto, ...patch } });
  const presets = useQuery(choicesQuery()).data?.webhookPresets;
  return (
    <FormFrame {...f.frame}>
      <Stack gap="sm">
        <Group grow align="flex-start">
          <WholeNumberInput label={acmeText('field.checkHours')} description={acmeText('checkHoursHint')} min={1} max={168} {...b.number('checkHours')} inputWrapperOrder={HINT_BELOW} data-testid="acme-set-checkHours" />
          <WholeNumberInput label={acmeText('field.warnDays')} description={acmeText('warnDaysHint')} min={1} max={90} {...b.number('warnDays')} inputWrapperOrder={HINT_BELOW} data-testid="acme-set-warnDays" />
        </Group>
        <Fieldset legend={acmeText('autoSection')} data-testid="acme-set-auto">
          <Stack gap="xs">
            <Text fz="xs" c="dimmed">
              {acmeText('autoHint')}
            </Text>
            <CaFields value={form.auto} set={setAuto} errorAt={(field) => err(`auto.${field}`)} testPrefix="acme-set-auto" />
            <WholeNumberInput label={acmeText('renewBeforeDays')} min={1} max={365} {...bindFields(form.auto, setAuto, err, 'auto.').number('renewBeforeDays')} maw={320} data-testid="acme-set-auto-renewdays" />
          </Stack>
        </Fieldset>
        <Fieldset legend={acmeText('webhook')}>
          <Stack gap="xs">
            <WebhookEditor<Webhook>
              value={form.webhook}
              onChange={(webhook) => f.set({ webhook })}
              errorAt={(field) => err(`webhook.${field}`)}
              customized
              hint={acmeText('webhookHint')}
              vars={acmeText('webhookVars')}
              presetValues={presets}
              test={{
                body: (webhook): TestBody => ({ webhook }),
                schema: ZAcmeWebhookTestRequest,
                send: (body: TestBody) => call(acmeRoutes.webhookTest, { body }, { silent: true }),
              }}
              testId="acme-set-webhook"
            />
            {form.webhook.enable && (
              <Checkbox.Group label={acmeText('field.webhookEvents')} value={form.webhookEvents} onChange={(v) => f.set({ webhookEvents: v as typeof form.webhookEvents })} error={err('webhookEvents')}>
                <Group mt={4}>
                  {ZAcmeEvent.options.map((e) => (
                    <Checkbox key={e} value={e} label={acmeText(`event.${e}`)} data-testid={`acme-set-event-${e}`} />
                  ))}
                </Group>
              </Checkbox.Group>
            )}
          </Stack>
        </Fieldset>
      </Stack>
    </FormFrame>
  );
}
