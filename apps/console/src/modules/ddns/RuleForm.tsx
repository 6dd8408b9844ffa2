/** Add/edit a DDNS task: easy mode (the common fields) or customized mode (every field of ZDdnsTask). */
import { Anchor, Fieldset, Group, Select, Stack, Switch, Text } from '@mantine/core';
import { CALLBACK_PRESETS, DDNS_PROVIDERS, ddnsProviderListing, type DdnsProviderName, type ddnsRoutes } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import { toNumber } from '../../kit/form/values';
import { LinesInput } from '../../kit/fields/LinesInput';
import { NameAndSwitch } from '../../kit/fields/NameAndSwitch';
import { SegmentedField } from '../../kit/fields/SegmentedField';
import { HINT_BELOW } from '../../kit/fields/styles';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import { ProxyEditor } from '../../kit/webhook/ProxyEditor';
import { RequestFields } from '../../kit/webhook/RequestFields';
import { useRuleForm, type RuleFormProps } from '../../kit/rule-dialog/useRuleForm';
import { lang } from '../../i18n';
import { CredentialFields } from './CredentialFields';
import { checkTask, emptyForm, families, formToTask, hiddenInEasyMode, providerOptions, switchProvider, taskToForm, type TaskForm } from './form';
import { ddnsText } from './i18n';
import { ddnsProvidersQuery } from './queries';
import { ddnsRules } from './ruleModule';
import { SourceEditor } from './SourceEditor';
import { WebhookEditor } from './WebhookEditor';

export function RuleForm(props: RuleFormProps<typeof ddnsRoutes>) {
  const saved = props.editing.saved;
  // A problem in a field easy mode hides switches the form to customized mode, and says so.
  const [switchedMode, setSwitchedMode] = useState(false);
  const f = useRuleForm(ddnsRules, props, {
    empty: emptyForm,
    toForm: taskToForm,
    toInput: formToTask,
    check: checkTask,
    onRefused: ([p]) => {
      const hidden = f.form.mode === 'easy' && hiddenInEasyMode(p!.path);
      if (hidden) f.set({ mode: 'customized' });
      setSwitchedMode(hidden);
    },
  });
  const { form, err, edit } = f;
  const b = bindFields(form, f.set, err);
  const providers = useQuery(ddnsProvidersQuery());
  // The daemon's list (labels in the reader's language); the contracts' own until it answers.
  const listings = providers.data?.providers ?? DDNS_PROVIDERS.map((name) => ddnsProviderListing(name, lang));
  const info = listings.find((p) => p.name === form.provider) ?? ddnsProviderListing(form.provider, lang);
  const customized = form.mode === 'customized';
  const providerHint = [ddnsText('providerHint', { ttl: info.minTtl }), ...(info.ipv6 ? [] : [ddnsText('providerNoIpv6')]), ...(info.txt ? [] : [ddnsText('providerNoTxt')])].join(' · ');

  return (
    <FormFrame {...f.frame} problemNote={switchedMode ? ddnsText('err.hiddenField') : undefined}>
      <Fieldset legend={ddnsText('sectionBasic')}>
        <Stack gap="xs">
          <NameAndSwitch
            name={{ label: ddnsText('name'), ...b.text('name'), 'data-testid': 'ddns-name' }}
            enable={{ label: ddnsText('enable'), ...b.check('enable'), 'data-testid': 'ddns-enable' }}
          />
          <Group align="flex-end" gap="md">
            <SegmentedField
              label={ddnsText('mode')}
              data={[
                { value: 'easy', label: ddnsText('modeEasy') },
                { value: 'customized', label: ddnsText('modeCustomized') },
              ]}
              {...b.choice('mode')}
              data-testid="ddns-mode"
            />
            <SegmentedField
              label={ddnsText('recordType')}
              data={[
                { value: 'A', label: ddnsText('recordA') },
                { value: 'AAAA', label: ddnsText('recordAAAA'), disabled: !info.ipv6 },
                { value: 'both', label: ddnsText('recordBoth'), disabled: !info.ipv6 },
              ]}
              {...b.choice('recordType')}
              data-testid="ddns-recordtype"
            />
          </Group>
          <Text fz="xs" c="dimmed">
            {ddnsText('modeHint')}
          </Text>
          {err('recordType') && (
            <Text fz="xs" c="red">
              {err('recordType')}
            </Text>
          )}
        </Stack>
      </Fieldset>

      <Fieldset legend={ddnsText('sectionProvider')}>
        <Stack gap="xs">
          <Select
            label={ddnsText('provider')}
            description={providerHint}
            data={providerOptions(listings)}
            value={form.provider}
            allowDeselect={false}
            searchable
            maxDropdownHeight={360}
            onChange={(v) => v && f.setForm((old) => switchProvider(old, v as DdnsProviderName, saved))}
            data-testid="ddns-provider"
          />
          <CredentialFields fields={info.fields} value={form.credentials} onChange={(credentials) => f.set({ credentials })} errorAt={err} />
          {info.docs && (
            <Anchor href={info.docs} target="_blank" rel="noreferrer" fz="xs" data-testid="ddns-provider-docs">
              {ddnsText('providerDocs')}
            </Anchor>
          )}
          {form.provider === 'callback' && (
            <RequestFields
              value={form.callback}
              onChange={(callback) => f.set({ callback })}
              errorAt={(field) => err(`callback.${field}`)}
              customized={customized}
              presets={CALLBACK_PRESETS.map((p) => ({ value: p, label: ddnsText(`cbPreset.${p}`) }))}
              presetValues={providers.data?.callbackPresets}
              texts={{ preset: ddnsText('callbackPreset'), url: ddnsText('callbackUrl'), urlHint: ddnsText('callbackVars') }}
              testId="ddns-callback"
            />
          )}
          <LinesInput label={ddnsText('domains')} description={ddnsText('domainsHint')} maxRows={10} {...b.text('domains')} data-testid="ddns-domains" />
        </Stack>
      </Fieldset>

      <Fieldset legend={ddnsText('sectionSource')}>
        <Stack gap="lg">
          {families(form.recordType).map((family) => (
            <SourceEditor
              key={family}
              family={family}
              value={form[family]}
              onChange={(s) => edit((d) => void (d[family] = s))}
              customized={customized}
              errorAt={(field) => err(`${family}.${field}`)}
              context={{ proxy: form.proxy, httpTimeout: toNumber(form.httpTimeout), skipVerify: form.skipVerify }}
            />
          ))}
        </Stack>
      </Fieldset>

      <Fieldset legend={ddnsText('sectionWebhook')}>
        <WebhookEditor
          value={form.webhook}
          onChange={(webhook) => f.set({ webhook })}
          errorAt={(field) => err(`webhook.${field}`)}
          customized={customized}
          httpTimeout={toNumber(form.httpTimeout)}
          skipVerify={form.skipVerify}
          testId="ddns-webhook"
        />
      </Fieldset>

      {customized && <AdvancedFields form={form} set={f.set} err={err} ttl={{ ttl: info.defaultTtl, min: info.minTtl }} />}
    </FormFrame>
  );
}

/** Customized mode only: DNS check before calling the provider, TTL, forced syncs, HTTP client. */
function AdvancedFields(props: { form: TaskForm; set: (patch: Partial<TaskForm>) => void; err: (field: string) => string | undefined; ttl: { ttl: number; min: number } }) {
  const { form, set, err } = props;
  const b = bindFields(form, set, err);
  const resolver = form.resolverCheck;
  return (
    <Fieldset legend={ddnsText('sectionAdvanced')} data-testid="ddns-advanced">
      <Stack gap="xs">
        <Switch
          label={ddnsText('resolverCheck')}
          description={ddnsText('resolverCheckHint')}
          checked={resolver.enable}
          onChange={(e) => set({ resolverCheck: { ...resolver, enable: e.currentTarget.checked } })}
          data-testid="ddns-resolver"
        />
        {resolver.enable && (
          <LinesInput
            label={ddnsText('resolverServers')}
            description={ddnsText('resolverServersHint')}
            value={resolver.servers}
            onChange={(e) => set({ resolverCheck: { ...resolver, servers: e.currentTarget.value } })}
            error={err('resolverCheck.servers')}
            data-testid="ddns-resolver-servers"
          />
        )}
        <Group grow align="flex-start">
          <WholeNumberInput label={ddnsText('ttl')} description={ddnsText('ttlHint', props.ttl)} min={0} max={86400} {...b.number('ttl')} data-testid="ddns-ttl" inputWrapperOrder={HINT_BELOW} />
          <WholeNumberInput label={ddnsText('forceSync')} description={ddnsText('forceSyncHint')} min={60} max={3600} {...b.number('forceSync')} data-testid="ddns-forcesync" inputWrapperOrder={HINT_BELOW} />
          <WholeNumberInput label={ddnsText('httpTimeout')} description={ddnsText('httpTimeoutHint')} min={3} max={60} {...b.number('httpTimeout')} data-testid="ddns-httptimeout" inputWrapperOrder={HINT_BELOW} />
        </Group>
        <Switch label={ddnsText('skipVerify')} {...b.check('skipVerify')} />
        <ProxyEditor label={ddnsText('proxy')} value={form.proxy} onChange={(proxy) => set({ proxy })} errorAt={(field) => err(`proxy.${field}`)} testId="ddns-proxy" />
      </Stack>
    </Fieldset>
  );
}
