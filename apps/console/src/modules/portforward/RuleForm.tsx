/** Add/edit a port forwarding rule: types, listener, targets, limits, IP filter, TLS, PROXY protocol. */
import { Checkbox, Group, Stack, Switch, TextInput } from '@mantine/core';
import type { portforwardRoutes } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import { FormTabs } from '../../kit/form/FormTabs';
import { FilterListEditor } from '../../kit/fields/FilterListEditor';
import { LinesInput } from '../../kit/fields/LinesInput';
import { PemInput } from '../../kit/fields/PemInput';
import { SegmentedField } from '../../kit/fields/SegmentedField';
import { StoreNamesInput } from '../../kit/tls/CertEditor';
import { HINT_BELOW, mono } from '../../kit/fields/styles';
import { LimitFields } from '../../kit/fields/LimitFields';
import { useRuleForm, type RuleFormProps } from '../../kit/rule-dialog/useRuleForm';
import {
  checkRule,
  countItems,
  defaultLimit,
  emptyForm,
  FILTER_MODES,
  FORWARD_TYPES,
  formToRule,
  portFeedback,
  PROXY_PROTOCOLS,
  tabOf,
  targetPortFeedback,
  toForm,
  type LimitField,
  type RuleForm as Form,
  type RuleTab,
} from './form';
import { pfText } from './i18n';
import { pfQueries } from './queries';
import { PortListInput } from './PortListInput';
import { pfRules } from './ruleModule';

export function RuleForm(props: RuleFormProps<typeof portforwardRoutes>) {
  const f = useRuleForm(pfRules, props, { empty: emptyForm, toForm, toInput: formToRule, check: checkRule, tabs: { first: 'basic' as RuleTab, of: tabOf } });
  const { form, err } = f;
  const b = bindFields(form, f.set, err);
  // A red placeholder under an error would read like a value.
  const ph = (field: string, text: string) => (err(field) ? undefined : text);
  const targetFb = targetPortFeedback(form.listenPorts, form.targetPorts);
  const tls = bindFields(form.tls, (tls) => f.set({ tls: { ...form.tls, ...tls } }), err, 'tls.');

  const basic = (
    <Stack gap="sm">
      <Group grow align="flex-start">
        <TextInput label={pfText('name')} withAsterisk {...b.text('name')} data-testid="pf-name" />
        <TextInput label={pfText('note')} {...b.text('note')} data-testid="pf-note" />
      </Group>
      <Checkbox.Group
        label={pfText('types')}
        description={pfText('typesHint')}
        withAsterisk
        value={form.types}
        onChange={(v) => f.set({ types: v as Form['types'] })}
        error={err('types')}
        data-testid="pf-types"
      >
        <Group gap="lg" mt={6}>
          {FORWARD_TYPES.map((ty) => (
            <Checkbox key={ty} value={ty} label={ty} data-testid={`pf-type-${ty}`} />
          ))}
        </Group>
      </Checkbox.Group>
      <Group grow align="flex-start">
        <TextInput
          label={pfText('listenHost')}
          description={pfText('listenHostHint')}
          placeholder={ph('listenHost', '0.0.0.0 / ::')}
          {...b.text('listenHost')}
          styles={mono}
          inputWrapperOrder={HINT_BELOW}
          data-testid="pf-listen-host"
        />
        <PortListInput
          label={pfText('listenPorts')}
          description={pfText('listenPortsHint')}
          placeholder={ph('listenPorts', '8080,9000-9010')}
          {...b.text('listenPorts')}
          feedback={portFeedback(form.listenPorts)}
          testId="pf-listen-ports"
        />
      </Group>
      <Group grow align="flex-start">
        <LinesInput
          label={pfText('targets')}
          description={pfText('targetsHint')}
          withAsterisk
          placeholder={ph('targets', '192.168.1.10\nnas.lan')}
          {...b.text('targets')}
          inputWrapperOrder={HINT_BELOW}
          data-testid="pf-targets"
        />
        <PortListInput
          label={pfText('targetPorts')}
          description={pfText('targetPortsHint')}
          placeholder={ph('targetPorts', '80')}
          {...b.text('targetPorts')}
          // A count mismatch is said better by the live feedback than by the schema.
          error={err('targetPorts') && targetFb && !targetFb.ok ? targetFb.text : err('targetPorts')}
          feedback={targetFb}
          testId="pf-target-ports"
        />
      </Group>
      <Switch label={pfText('enable')} {...b.check('enable')} data-testid="pf-enable" />
    </Stack>
  );

  const limits = <LimitsTab form={form} set={(l) => f.set({ limits: { ...form.limits, ...l } })} err={err} />;

  const filter = (
    <FilterListEditor
      modes={FILTER_MODES.map((m) => ({ value: m, label: pfText(`filter.${m}`) }))}
      modeLabel={pfText('filterMode')}
      mode={form.filterMode}
      onMode={(filterMode) => f.set({ filterMode })}
      list={form.filterList}
      onList={(filterList) => f.set({ filterList })}
      listLabel={pfText('filterList')}
      hint={pfText('filterListHint')}
      placeholder={ph('filter.list', '192.168.1.0/24\n2001:db8::/32')}
      error={err('filter.list')}
      footer={pfText('filterCount', { n: countItems(form.filterList) })}
      testIds={{ mode: 'pf-filter-mode', list: 'pf-filter-list' }}
    />
  );

  const tlsTab = (
    <Stack gap="sm">
      <Switch label={pfText('tlsListen')} description={pfText('tlsListenHint')} {...tls.check('listen')} error={err('tls.listen')} data-testid="pf-tls-listen" />
      {form.tls.listen && (
        <SegmentedField
          label={pfText('tlsCertSource')}
          data={(['pem', 'store'] as const).map((v) => ({ value: v, label: pfText(`tlsCertSource.${v}`) }))}
          {...tls.choice('certSource')}
          data-testid="pf-tls-source"
        />
      )}
      {form.tls.listen && form.tls.certSource === 'store' && (
        <StoreNamesInput
          value={form.tls.certNames}
          onChange={(certNames) => f.set({ tls: { ...form.tls, certNames } })}
          description={pfText('tlsCertNamesHint')}
          error={err('tls.certNames')}
          testId="pf-tls-names"
        />
      )}
      {form.tls.listen && form.tls.certSource === 'pem' && (
        <Group grow align="flex-start">
          {(['cert', 'key'] as const).map((field) => (
            <PemInput
              key={field}
              label={field === 'cert' ? pfText('tlsCert') : pfText('tlsKey')}
              uploadLabel={pfText('tlsUpload')}
              placeholder={ph(`tls.${field}`, field === 'cert' ? '-----BEGIN CERTIFICATE-----' : '-----BEGIN PRIVATE KEY-----')}
              minRows={4}
              maxRows={10}
              value={form.tls[field]}
              onValue={(pem) => f.set({ tls: { ...form.tls, [field]: pem } })}
              error={err(`tls.${field}`)}
              testId={`pf-tls-${field}`}
              uploadTestId={`pf-tls-${field}-upload`}
            />
          ))}
        </Group>
      )}
      <Switch label={pfText('tlsTarget')} description={pfText('tlsTargetHint')} {...tls.check('target')} data-testid="pf-tls-target" />
      {form.tls.target && (
        <Group grow align="flex-start">
          <TextInput
            label={pfText('tlsServerName')}
            description={pfText('tlsServerNameHint')}
            {...tls.text('targetServerName')}
            styles={mono}
            data-testid="pf-tls-servername"
          />
          <Switch mt={28} label={pfText('tlsInsecure')} {...tls.check('targetInsecure')} data-testid="pf-tls-insecure" />
        </Group>
      )}
      <SegmentedField
        label={pfText('proxyProtocol')}
        description={pfText('proxyProtocolHint')}
        data={PROXY_PROTOCOLS.map((m) => ({ value: m, label: pfText(`proxy.${m}`) }))}
        {...b.choice('proxyProtocol')}
        data-testid="pf-proxy"
      />
    </Stack>
  );

  return (
    <FormFrame {...f.frame} problemListTitle={pfText('formErrors')}>
      <FormTabs
        {...f.tabsProps!}
        tabs={[
          { value: 'basic', label: pfText('tabBasic'), content: basic },
          { value: 'limits', label: pfText('tabLimits'), content: limits },
          { value: 'filter', label: pfText('tabFilter'), content: filter },
          { value: 'tls', label: pfText('tabTls'), content: tlsTab },
        ]}
      />
    </FormFrame>
  );
}

/** Blank limits follow the module settings, shown greyed; a limit the chosen types do not use is lighter. */
function LimitsTab(props: { form: Form; set: (limits: Partial<Form['limits']>) => void; err: (field: string) => string | undefined }) {
  const configure = useQuery(pfQueries.configure());
  const hasTcp = props.form.types.some((t) => t.startsWith('tcp'));
  const hasUdp = props.form.types.some((t) => t.startsWith('udp'));
  const placeholder = (field: LimitField) => {
    const def = defaultLimit(configure.data?.configure, field);
    const shown = def === undefined ? '' : def === 0 ? pfText('unlimited') : String(def);
    return shown ? pfText('defaultIs', { v: shown }) : '';
  };
  return (
    <LimitFields
      value={props.form.limits}
      onChange={props.set}
      err={props.err}
      hint={pfText('limitsHint')}
      placeholder={placeholder}
      unused={(field) => !(field.startsWith('tcp') ? hasTcp : hasUdp)}
      testPrefix="pf"
    />
  );
}
