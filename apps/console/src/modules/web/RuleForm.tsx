/** Add/edit a web rule: listener, HTTPS (its certificates and HTTP redirect port), default service, sub rules, access settings and limits. */
import { Alert, Button, Group, Select, Stack, Switch, Text, Textarea, TextInput } from '@mantine/core';
import { DEFAULT_CLIENT_IP_HEADERS, type webRoutes } from '@lucky/contracts';
import { useState } from 'react';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import { FormTabs } from '../../kit/form/FormTabs';
import { AddressPortFields } from '../../kit/fields/AddressPortFields';
import { LinesInput } from '../../kit/fields/LinesInput';
import { NameAndSwitch } from '../../kit/fields/NameAndSwitch';
import { SegmentedField } from '../../kit/fields/SegmentedField';
import { mono } from '../../kit/fields/styles';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import { useRuleForm, type RuleFormProps } from '../../kit/rule-dialog/useRuleForm';
import { CertListEditor } from '../../kit/tls/CertEditor';
import { WEB_CERT_SOURCES } from '../../kit/tls/certs';
import { AccessEditor } from './AccessEditor';
import { accessSectionOf, checkRule, tabOf, type RuleTab } from './checks';
import { certsChanged, emptyRule, formToRule, ruleToForm, TLS_VERSIONS, type RuleForm as Form } from './form';
import { webText } from './i18n';
import { RuleLimits } from './RuleLimits';
import { webRules } from './ruleModule';
import { ServiceEditor } from './ServiceEditor';
import { SubRules } from './SubRules';

type ErrorAt = (field: string) => string | undefined;

export function RuleForm(props: RuleFormProps<typeof webRoutes>) {
  // The access folds that are open; a refused save opens the one holding the problem.
  const [open, setOpen] = useState<string[]>([]);
  const f = useRuleForm(webRules, props, {
    empty: emptyRule,
    toForm: ruleToForm,
    toInput: formToRule,
    check: checkRule,
    tabs: { first: 'basic' as RuleTab, of: tabOf },
    onRefused: ([p]) => {
      const section = accessSectionOf(p!.path);
      if (section && !p!.path.startsWith('subRules') && !open.includes(section)) setOpen([...open, section]);
    },
  });
  const { form, err, set } = f;
  const b = bindFields(form, set, err);

  const basic = (
    <Stack gap="xs">
      <NameAndSwitch
        name={{ label: webText('name'), ...b.text('name'), 'data-testid': 'web-name' }}
        enable={{ label: webText('enable'), ...b.check('enable'), 'data-testid': 'web-enable' }}
      />
      <Group align="flex-end" gap="md">
        <SegmentedField label={webText('network')} data={['tcp4', 'tcp6']} {...b.choice('network')} data-testid="web-network" />
        <SegmentedField
          label={webText('protocol')}
          data={[
            { value: 'http', label: 'HTTP' },
            { value: 'https', label: 'HTTPS' },
          ]}
          {...b.choice('protocol')}
          data-testid="web-protocol"
        />
      </Group>
      <AddressPortFields
        address={{ label: webText('address'), description: webText('addressHint'), placeholder: form.network === 'tcp6' ? '::' : '0.0.0.0', ...b.text('address'), 'data-testid': 'web-address' }}
        port={{ label: webText('port'), description: '1-65535', ...b.number('port'), 'data-testid': 'web-port' }}
      />
      <Switch label={webText('firewallAllow')} description={webText('firewallAllowHint')} {...b.check('firewallAllow')} data-testid="web-firewall" />
      <Textarea label={webText('note')} autosize minRows={1} maxRows={4} {...b.text('note')} />
    </Stack>
  );

  const https = (
    <Stack gap="xs">
      {form.protocol !== 'https' && (
        <Alert color="blue" p="xs">
          {webText('httpsOnly')}
        </Alert>
      )}
      <Select label={webText('minTls')} data={TLS_VERSIONS.map((v) => ({ value: v, label: `TLS ${v}` }))} allowDeselect={false} {...b.choice('minTls')} maw={240} data-testid="web-mintls" />
      <Switch label={webText('http2')} description={webText('http2Hint')} {...b.check('http2')} data-testid="web-http2" />
      <WholeNumberInput
        label={webText('httpRedirectPort')}
        description={webText('httpRedirectPortHint')}
        min={0}
        max={65535}
        {...b.number('httpRedirectPort')}
        maw={480}
        data-testid="web-redirect-port"
      />
      <CertListEditor value={form.certs} onChange={(certs) => set(certsChanged(form, certs))} sources={WEB_CERT_SOURCES} errorAt={(field) => err(`certs.${field}`)} testPrefix="web-cert" />
    </Stack>
  );

  const service = (
    <Stack gap="xs">
      <Text fz="xs" c="dimmed">
        {webText('defaultServiceHint')}
      </Text>
      <ServiceEditor value={form.defaultService} onChange={(defaultService) => set({ defaultService })} errorAt={(field) => err(`defaultService.${field}`)} testId="web-default" />
    </Stack>
  );

  const subRules = <SubRules value={form.subRules} onChange={(subRules) => set({ subRules })} errorAt={err} ruleSaved={props.editing.key !== null} />;

  return (
    <FormFrame {...f.frame}>
      <FormTabs
        {...f.tabsProps!}
        tabs={[
          { value: 'basic', label: webText('tabBasic'), content: basic },
          { value: 'https', label: webText('tabHttps'), content: https },
          { value: 'service', label: webText('tabService'), content: service },
          { value: 'subrules', label: webText('tabSubRules', { n: form.subRules.length }), content: subRules },
          { value: 'access', label: webText('tabAccess'), content: <AccessTab form={form} set={set} err={err} open={open} onOpen={setOpen} /> },
        ]}
      />
    </FormFrame>
  );
}

/** What applies to every request of the rule: access folds, limits per client address, whose address is the client's, the access log. */
function AccessTab(props: { form: Form; set: (patch: Partial<Form>) => void; err: ErrorAt; open: string[]; onOpen: (v: string[]) => void }) {
  const { form, set, err } = props;
  const b = bindFields(form, set, err);
  return (
    <Stack gap="sm">
      <Text fz="xs" c="dimmed">
        {webText('accessRuleHint')}
      </Text>
      <AccessEditor value={form.access} onChange={(access) => set({ access })} errorAt={err} open={props.open} onOpen={props.onOpen} testId="web-access" />
      <RuleLimits value={form.limits} onChange={(patch) => set({ limits: { ...form.limits, ...patch } })} errorAt={err} />
      <Text fz="sm" fw={500} mt="xs">
        {webText('sectionClientIp')}
      </Text>
      <Group grow align="flex-start">
        <LinesInput label={webText('trustedProxies')} description={webText('trustedProxiesHint')} maxRows={6} {...b.text('trustedProxies')} data-testid="web-trusted" />
        <TextInput
          label={webText('clientIpHeaders')}
          description={webText('clientIpHeadersHint', { headers: DEFAULT_CLIENT_IP_HEADERS.join(', ') })}
          {...b.text('clientIpHeaders')}
          styles={mono}
        />
      </Group>
      <WholeNumberInput
        label={webText('accessLogCapacity')}
        description={webText('accessLogCapacityHint')}
        min={0}
        max={102400}
        {...b.number('accessLogCapacity', 'accessLog.capacity')}
        maw={320}
        data-testid="web-accesslog-capacity"
      />
    </Stack>
  );
}
