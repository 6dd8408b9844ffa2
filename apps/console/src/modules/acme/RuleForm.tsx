/** Add/edit a certificate: its name, where it comes from (ACME, pasted PEM, files) and, for ACME, the CA, names, key and challenge. */
import { Group, Select, Stack, Switch, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { ACME_EAB_REQUIRED, DDNS_PROVIDER_INFO, type acmeRoutes } from '@lucky/contracts';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import { LinesInput } from '../../kit/fields/LinesInput';
import { PemInput } from '../../kit/fields/PemInput';
import { SecretInput } from '../../kit/fields/SecretInput';
import { SegmentedField } from '../../kit/fields/SegmentedField';
import { mono } from '../../kit/fields/styles';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import { useRuleForm, type RuleFormProps } from '../../kit/rule-dialog/useRuleForm';
import { checkRule, emptyForm, formToRule, toForm } from './form';
import { acmeText as t, type AcmeTextId } from './i18n';
import { ddnsTasksQuery } from './queries';
import { acmeRules } from './ruleModule';

const CAS = ['letsencrypt', 'letsencryptStaging', 'zerossl', 'google', 'custom'] as const;

export function RuleForm(props: RuleFormProps<typeof acmeRoutes>) {
  const f = useRuleForm(acmeRules, props, { empty: emptyForm, toForm, toInput: formToRule, check: checkRule });
  const v = f.form;
  const b = bindFields(v, f.set);
  const tasks = useQuery({ ...ddnsTasksQuery(), enabled: v.source === 'acme' && v.challenge === 'dns-01' }).data?.list ?? [];
  const choices = <K extends string>(prefix: string, values: readonly K[]) => values.map((value) => ({ value, label: t(`${prefix}.${value}` as AcmeTextId) }));
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
          <Group grow align="flex-start">
            <Select label={t('ca')} data={choices('ca', CAS)} {...b.choice('ca')} allowDeselect={false} data-testid="acme-ca" />
            <Select label={t('keyType')} data={choices('keyType', ['ec256', 'rsa2048', 'rsa4096'] as const)} {...b.choice('keyType')} allowDeselect={false} data-testid="acme-keytype" />
          </Group>
          {v.ca === 'custom' && (
            <>
              <TextInput label={t('directoryUrl')} placeholder="https://ca.example.lan/acme/acme/directory" {...b.text('directoryUrl')} styles={mono} data-testid="acme-directory" />
              <PemInput label={t('caRoot')} uploadLabel={t('upload')} placeholder={t('caRootHint')} value={v.caRoot} onValue={(caRoot) => f.set({ caRoot })} error={undefined} minRows={2} testId="acme-caroot" />
            </>
          )}
          <TextInput label={t('email')} description={t('emailHint')} {...b.text('email')} data-testid="acme-email" />
          {(ACME_EAB_REQUIRED.includes(v.ca) || v.ca === 'custom' || v.eabKid !== '') && (
            <Group grow align="flex-start">
              <TextInput label={t('eabKid')} description={t('eabHint')} {...b.text('eabKid')} styles={mono} data-testid="acme-eabkid" />
              <SecretInput label={t('eabHmac')} value={v.eabHmac} onChange={(eabHmac) => f.set({ eabHmac })} testId="acme-eabhmac" />
            </Group>
          )}
          <SegmentedField label={t('challenge')} data={choices('challenge', ['http-01', 'dns-01'] as const)} {...b.choice('challenge')} data-testid="acme-challenge" />
          {v.challenge === 'http-01' ? (
            <Group grow align="flex-start">
              <TextInput label={t('httpAddress')} description={t('httpHint')} placeholder="0.0.0.0" {...b.text('httpAddress')} data-testid="acme-httpaddress" />
              <WholeNumberInput label={t('httpPort')} min={1} max={65535} {...b.number('httpPort')} data-testid="acme-httpport" />
            </Group>
          ) : (
            <Stack gap="xs">
              <Group grow align="flex-start">
                <Select
                  label={t('dnsTask')}
                  description={t('dnsTaskHint')}
                  // A task whose provider cannot write TXT records is shown but cannot be picked.
                  data={tasks.map((task) => ({ value: task.key, label: `${task.name} (${task.provider})`, disabled: !DDNS_PROVIDER_INFO[task.provider].txt }))}
                  value={v.dnsTask || null}
                  onChange={(k) => f.set({ dnsTask: k ?? '' })}
                  data-testid="acme-dnstask"
                />
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
