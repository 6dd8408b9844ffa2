/** Add/edit a STUN rule: local port and channel mode, STUN servers and keepalive, router mappings, forwarding limits and filter, what happens on an address change. */
import { Divider, Group, MultiSelect, Stack, Switch, Text, TextInput } from '@mantine/core';
import { ZStunWebhookTestRequest, stunRoutes, type RouteBody, type Webhook } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { call } from '../../api';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import { FormTabs, type FormTab } from '../../kit/form/FormTabs';
import { FilterListEditor } from '../../kit/fields/FilterListEditor';
import { LimitFields } from '../../kit/fields/LimitFields';
import { LinesInput } from '../../kit/fields/LinesInput';
import { NameAndSwitch } from '../../kit/fields/NameAndSwitch';
import { SegmentedField } from '../../kit/fields/SegmentedField';
import { HINT_BELOW, mono } from '../../kit/fields/styles';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import { useRuleForm, type RuleFormProps } from '../../kit/rule-dialog/useRuleForm';
import { WebhookEditor } from '../../kit/webhook/WebhookEditor';
import { checkRule, emptyForm, FILTER_MODES, formToRule, shownFields, tabOf, toForm, type RuleForm as Form, type RuleTab } from './form';
import { stunText } from './i18n';
import { stunChoicesQuery, stunQueries } from './queries';
import { stunRules } from './ruleModule';

type Err = (field: string) => string | undefined;
type TestBody = RouteBody<typeof stunRoutes.webhookTest>;

export function RuleForm(props: RuleFormProps<typeof stunRoutes>) {
  const f = useRuleForm(stunRules, props, { empty: emptyForm, toForm, toInput: formToRule, check: checkRule, tabs: { first: 'basic' as RuleTab, of: tabOf } });
  const { form, err } = f;
  const b = bindFields(form, f.set, err);
  const shown = shownFields(form);
  const configure = useQuery(stunQueries.configure()).data?.configure;

  const basic = (
    <Stack gap="sm">
      <NameAndSwitch
        name={{ label: stunText('name'), withAsterisk: true, ...b.text('name'), 'data-testid': 'stun-name' }}
        enable={{ label: stunText('enable'), ...b.check('enable'), 'data-testid': 'stun-enable' }}
      />
      <Group align="flex-end" gap="md">
        <SegmentedField label={stunText('protocol')} data={[{ value: 'udp', label: 'UDP' }, { value: 'tcp', label: 'TCP' }]} {...b.choice('protocol')} data-testid="stun-protocol" />
        <SegmentedField
          label={stunText('mode')}
          data={[
            { value: 'forward', label: stunText('mode.forward') },
            { value: 'none', label: stunText('mode.none') },
          ]}
          {...b.choice('mode')}
          data-testid="stun-mode"
        />
      </Group>
      <Text fz="xs" c="dimmed">
        {stunText('modeHint')}
      </Text>
      <Group grow align="flex-start">
        <TextInput label={stunText('listenHost')} description={stunText('listenHostHint')} placeholder="0.0.0.0" {...b.text('listenHost')} styles={mono} inputWrapperOrder={HINT_BELOW} data-testid="stun-listen-host" />
        <WholeNumberInput label={stunText('localPort')} description={stunText('localPortHint')} min={0} max={65535} allowNegative={false} {...b.number('localPort')} inputWrapperOrder={HINT_BELOW} data-testid="stun-local-port" />
      </Group>
      {shown.target && (
        <Group grow align="flex-start" data-testid="stun-target">
          <TextInput label={stunText('targetHost')} description={stunText('targetHostHint')} withAsterisk placeholder="192.168.1.10" {...b.text('targetHost')} styles={mono} inputWrapperOrder={HINT_BELOW} data-testid="stun-target-host" />
          <WholeNumberInput label={stunText('targetPort')} withAsterisk min={1} max={65535} allowNegative={false} {...b.number('targetPort')} inputWrapperOrder={HINT_BELOW} data-testid="stun-target-port" />
        </Group>
      )}
      <TextInput label={stunText('note')} {...b.text('note')} data-testid="stun-note" />
    </Stack>
  );

  const stun = (
    <Stack gap="sm">
      <LinesInput
        label={stunText('stunServers')}
        description={stunText('stunServersHint')}
        placeholder={configure?.stunServers.join('\n')}
        {...b.text('stunServers')}
        inputWrapperOrder={HINT_BELOW}
        data-testid="stun-servers"
      />
      <Group grow align="flex-start">
        <WholeNumberInput
          label={stunText('keepaliveInterval')}
          description={stunText('keepaliveIntervalHint')}
          placeholder={configure ? stunText('defaultIs', { v: configure.keepaliveInterval }) : ''}
          min={5}
          max={3600}
          allowNegative={false}
          {...b.number('keepaliveInterval')}
          inputWrapperOrder={HINT_BELOW}
          data-testid="stun-keepalive-interval"
        />
        {shown.keepaliveUrl ? (
          <TextInput
            label={stunText('keepaliveUrl')}
            description={stunText('keepaliveUrlHint')}
            placeholder={configure?.keepaliveUrl}
            {...b.text('keepaliveUrl')}
            styles={mono}
            inputWrapperOrder={HINT_BELOW}
            data-testid="stun-keepalive-url"
          />
        ) : (
          <div />
        )}
      </Group>
    </Stack>
  );

  const tabs: FormTab<RuleTab>[] = [
    { value: 'basic', label: stunText('tabBasic'), content: basic },
    { value: 'stun', label: stunText('tabStun'), content: stun },
    { value: 'mapping', label: stunText('tabMapping'), content: <MappingTab form={form} set={f.set} err={err} /> },
  ];
  if (shown.limits) tabs.push({ value: 'forward', label: stunText('tabForward'), content: <ForwardTab form={form} set={f.set} err={err} /> });
  tabs.push({ value: 'notify', label: stunText('tabNotify'), content: <NotifyTab form={form} set={f.set} err={err} /> });

  return (
    <FormFrame {...f.frame} problemListTitle={stunText('formErrors')}>
      <FormTabs {...f.tabsProps!} tabs={tabs} />
    </FormFrame>
  );
}

interface TabProps {
  form: Form;
  set: (patch: Partial<Form>) => void;
  err: Err;
}

/** UPnP IGD and NAT-PMP: each a switch, with its gateway and lease when on. */
function MappingTab({ form, set, err }: TabProps) {
  const upnp = bindFields(form.upnp, (p) => set({ upnp: { ...form.upnp, ...p } }), err, 'upnp.');
  const natpmp = bindFields(form.natpmp, (p) => set({ natpmp: { ...form.natpmp, ...p } }), err, 'natpmp.');
  return (
    <Stack gap="sm">
      <Switch label={stunText('upnp')} description={stunText('upnpHint')} {...upnp.check('enable')} data-testid="stun-upnp" />
      {form.upnp.enable && (
        <Group grow align="flex-start">
          <TextInput label={stunText('upnpGateway')} description={stunText('upnpGatewayHint')} {...upnp.text('gatewayUrl')} styles={mono} inputWrapperOrder={HINT_BELOW} data-testid="stun-upnp-gateway" />
          <WholeNumberInput label={stunText('upnpLease')} description={stunText('upnpLeaseHint')} min={0} max={604800} allowNegative={false} {...upnp.number('lease')} inputWrapperOrder={HINT_BELOW} data-testid="stun-upnp-lease" />
        </Group>
      )}
      <Divider />
      <Switch label={stunText('natpmp')} description={stunText('natpmpHint')} {...natpmp.check('enable')} data-testid="stun-natpmp" />
      {form.natpmp.enable && (
        <Group grow align="flex-start">
          <TextInput label={stunText('natpmpGateway')} description={stunText('natpmpGatewayHint')} {...natpmp.text('gateway')} styles={mono} inputWrapperOrder={HINT_BELOW} data-testid="stun-natpmp-gateway" />
          <WholeNumberInput
            label={stunText('natpmpLifetime')}
            description={stunText('natpmpLifetimeHint')}
            min={60}
            max={604800}
            allowNegative={false}
            {...natpmp.number('lifetime')}
            inputWrapperOrder={HINT_BELOW}
            data-testid="stun-natpmp-lifetime"
          />
        </Group>
      )}
    </Stack>
  );
}

/** Forward mode only: the limits (blank = the default) and the IP filter. */
function ForwardTab({ form, set, err }: TabProps) {
  return (
    <Stack gap="md">
      <LimitFields
        value={form.limits}
        onChange={(l) => set({ limits: { ...form.limits, ...l } })}
        err={err}
        hint={stunText('limitsHint')}
        placeholder={() => stunText('limitDefault')}
        unused={(field) => !field.startsWith(form.protocol)}
        testPrefix="stun"
      />
      <FilterListEditor
        modes={FILTER_MODES.map((m) => ({ value: m, label: stunText(`filter.${m}`) }))}
        modeLabel={stunText('filterMode')}
        mode={form.filterMode}
        onMode={(filterMode) => set({ filterMode })}
        list={form.filterList}
        onList={(filterList) => set({ filterList })}
        listLabel={stunText('filterList')}
        hint={stunText('filterListHint')}
        placeholder={err('filter.list') ? undefined : '192.168.1.0/24'}
        error={err('filter.list')}
        footer={stunText('filterCount', { n: form.filterList.split('\n').filter((l) => l.trim() !== '').length })}
        testIds={{ mode: 'stun-filter-mode', list: 'stun-filter-list' }}
      />
    </Stack>
  );
}

/** On an address change: the webhook, a command, DDNS tasks that publish it. */
function NotifyTab({ form, set, err }: TabProps) {
  const choices = useQuery(stunChoicesQuery()).data;
  const command = bindFields(form.command, (p) => set({ command: { ...form.command, ...p } }), err, 'command.');
  const tasks = choices?.ddnsTasks ?? [];
  const known = new Set(tasks.map((t) => t.key));
  const taskData = [
    ...tasks.map((t) => ({ value: t.key, label: t.enable ? t.name : stunText('ddnsTaskOff', { name: t.name }) })),
    // A task deleted since the rule was saved stays visible, so it can be taken out.
    ...form.ddnsTasks.filter((k) => choices && !known.has(k)).map((k) => ({ value: k, label: stunText('ddnsTaskMissing', { key: k }) })),
  ];
  return (
    <Stack gap="sm">
      <WebhookEditor<Webhook>
        value={form.webhook}
        onChange={(webhook) => set({ webhook })}
        errorAt={(field) => err(`webhook.${field}`)}
        customized
        hint={stunText('webhookHint')}
        vars={stunText('webhookVars')}
        presetValues={choices?.webhookPresets}
        test={{
          body: (webhook): TestBody => ({ webhook }),
          schema: ZStunWebhookTestRequest,
          send: (body: TestBody) => call(stunRoutes.webhookTest, { body }, { silent: true }),
        }}
        testId="stun-webhook"
      />
      <Divider />
      <Switch label={stunText('command')} description={stunText('commandHint')} {...command.check('enable')} data-testid="stun-command" />
      {form.command.enable && (
        <Group grow align="flex-start">
          <LinesInput label={stunText('commandLine')} minRows={1} {...command.text('line')} data-testid="stun-command-line" />
          <WholeNumberInput label={stunText('commandTimeout')} min={1} max={3600} allowNegative={false} maw={160} {...command.number('timeout')} data-testid="stun-command-timeout" />
        </Group>
      )}
      <Divider />
      <MultiSelect
        label={stunText('ddnsTasks')}
        description={stunText('ddnsTasksHint')}
        data={taskData}
        value={form.ddnsTasks}
        onChange={(ddnsTasks) => set({ ddnsTasks })}
        maxValues={16}
        nothingFoundMessage={stunText('ddnsTasksNone')}
        placeholder={tasks.length === 0 ? stunText('ddnsTasksNone') : undefined}
        error={err('ddnsTasks')}
        searchable
        clearable
        data-testid="stun-ddns-tasks"
      />
    </Stack>
  );
}
