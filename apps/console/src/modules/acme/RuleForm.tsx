/** Add/edit a certificate: its name, where it comes from (ACME, pasted PEM, files) and, for ACME, the CA, names, key and challenge. */
import { Group, Stack, Switch, TextInput } from '@mantine/core';
import type { acmeRoutes } from '@lucky/contracts';
import { DnsTaskSelect } from '../../kit/fields/DnsTaskSelect';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import { LinesInput } from '../../kit/fields/LinesInput';
import { PemInput } from '../../kit/fields/PemInput';
import { SegmentedField } from '../../kit/fields/SegmentedField';
import { mono } from '../../kit/fields/styles';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import { useRuleForm, type RuleFormProps } from '../../kit/rule-dialog/useRuleForm';
import { CaFields } from './CaFields';
import { checkRule, emptyForm, formToRule, toForm } from './form';
import { acmeChoices as choices, acmeText as t } from './i18n';
import { acmeRules } from './ruleModule';

export function RuleForm(props: RuleFormProps<typeof acmeRoutes>) {
  const f = useRuleForm(acmeRules, props, { empty: emptyForm, toForm, toInput: formToRule, check: checkRule });
  const v = f.form;
  const b = bindFields(v, f.set);
  return (
    <FormFrame {...f.frame}>
      <TextInput label={t('name')} description={t('nameHint')} {...b.text('name')} styles={mono} data-testid="acme-name" />
      <SegmentedField label={t('source')} data={choices('source', ['acme', 'pem', 'file'] as const)} {...b.choice('source')} data-testid="acme-source" />
      {v.source === 'pem' && (
        <>
          <PemInput label={t('certPem')} uploadLabel={t('upload')} placeholder="-----BEGIN CERTIFICATE-----" value={v.cert} onValue={(cert) => f.set({ cert })} error={undefined} testId="acme-cert" />
          <PemInput label={t('keyPem')} uploadLabel={t('upload')} placeholder="-----BEGIN PRIVATE KEY-----" value={v.privateKey} onValue={(privateKey) => f.set({ privateKey })} error={undefined} testId="acme-key" />
        </>
      )}
      {v.source === 'file' && (
        <Stack gap="xs">
          <TextInput label={t('certPath')} description={t('filesHint')} placeholder="/etc/ssl/certs/site.pem" {...b.text('certPath')} styles={mono} data-testid="acme-certpath" />
          <TextInput label={t('keyPath')} placeholder="/etc/ssl/private/site.key" {...b.text('keyPath')} styles={mono} data-testid="acme-keypath" />
        </Stack>
      )}
      {v.source === 'acme' && (
        <>
          <LinesInput label={t('domains')} description={t('domainsHint')} {...b.text('domains')} data-testid="acme-domains" />
          <CaFields value={v} set={f.set} testPrefix="acme" />
          <SegmentedField label={t('challenge')} data={choices('challenge', ['http-01', 'dns-01'] as const)} {...b.choice('challenge')} data-testid="acme-challenge" />
          {v.challenge === 'http-01' ? (
            <Group grow align="flex-start">
              <TextInput label={t('httpAddress')} description={t('httpHint')} placeholder="0.0.0.0" {...b.text('httpAddress')} data-testid="acme-httpaddress" />
              <WholeNumberInput label={t('httpPort')} min={1} max={65535} {...b.number('httpPort')} data-testid="acme-httpport" />
            </Group>
          ) : (
            <Stack gap="xs">
              <Group grow align="flex-start">
                <DnsTaskSelect label={t('dnsTask')} description={t('dnsTaskHint')} value={v.dnsTask} onChange={(dnsTask) => f.set({ dnsTask })} testId="acme-dnstask" />
                <WholeNumberInput label={t('dnsWait')} description={t('dnsWaitHint')} min={0} max={3600} {...b.number('dnsWait')} data-testid="acme-dnswait" />
              </Group>
              <Switch label={t('dnsCheck')} description={t('dnsCheckHint')} {...b.check('dnsCheck')} data-testid="acme-dnscheck" />
              {v.dnsCheck && (
                <Group grow align="flex-start">
                  <LinesInput label={t('dnsServers')} description={t('dnsServersHint')} placeholder={'192.0.2.53\n192.0.2.54:5353'} {...b.text('dnsServers')} data-testid="acme-dnsservers" />
                  <WholeNumberInput label={t('dnsCheckTimeout')} min={5} max={3600} {...b.number('dnsCheckTimeout')} data-testid="acme-dnschecktimeout" />
                </Group>
              )}
            </Stack>
          )}
          <WholeNumberInput label={t('renewBeforeDays')} min={1} max={365} {...b.number('renewBeforeDays')} data-testid="acme-renewdays" />
          <PemInput label={t('accountKey')} uploadLabel={t('upload')} placeholder={t('accountKeyHint')} value={v.accountKey} onValue={(accountKey) => f.set({ accountKey })} error={undefined} minRows={2} testId="acme-accountkey" />
        </>
      )}
      <TextInput label={t('note')} {...b.text('note')} />
      <Switch label={t('enable')} {...b.check('enable')} />
    </FormFrame>
  );
}
