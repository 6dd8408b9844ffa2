/**
 * Add/edit an FTP server: listen address and control port, passive range and the address it
 * announces, the mounted storages, FTPS with its certificates, anonymous access, limits, note.
 */
import { Divider, Group, Select, Stack, Switch, TextInput } from '@mantine/core';
import type { ftpserverRoutes } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import { SegmentedField } from '../../kit/fields/SegmentedField';
import { HINT_BELOW, mono } from '../../kit/fields/styles';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import { useRuleForm, type RuleFormProps } from '../../kit/rule-dialog/useRuleForm';
import { MountsEditor } from '../../kit/storage/MountsEditor';
import { ServerFields } from '../../kit/storage/ServerFields';
import { CertListEditor } from '../../kit/tls/CertEditor';
import { TLS_CERT_SOURCES } from '../../kit/tls/certs';
import { checkRule, emptyForm, formToRule, toForm, type RuleForm as Form } from './form';
import { ftpText } from './i18n';
import { ddnsChoicesQuery } from './queries';
import { ftpRules } from './ruleModule';

export function RuleForm(props: RuleFormProps<typeof ftpserverRoutes>) {
  const f = useRuleForm(ftpRules, props, { empty: emptyForm, toForm, toInput: formToRule, check: checkRule });
  const { form, err } = f;
  const b = bindFields(form, f.set, err);
  const tasks = useQuery(ddnsChoicesQuery()).data?.list;
  return (
    <FormFrame {...f.frame} problemListTitle={ftpText('formErrors')}>
      <Stack gap="sm">
        <ServerFields form={form} set={f.set} err={err} text={ftpText} anyAddress="::" testPrefix="ftp" />
        <Group grow align="flex-start">
          <WholeNumberInput label={ftpText('pasvMin')} description={ftpText('pasvHint')} min={1} max={65535} allowNegative={false} {...b.number('pasvMin')} inputWrapperOrder={HINT_BELOW} data-testid="ftp-pasv-min" />
          <WholeNumberInput label={ftpText('pasvMax')} min={1} max={65535} allowNegative={false} {...b.number('pasvMax')} data-testid="ftp-pasv-max" />
        </Group>
        <SegmentedField
          label={ftpText('pasvMode')}
          description={ftpText('pasvModeHint')}
          data={(['auto', 'fixed', 'ddns'] as const).map((m) => ({ value: m, label: ftpText(`pasvMode.${m}`) }))}
          value={form.pasvMode}
          onChange={(v) => f.set({ pasvMode: v as Form['pasvMode'] })}
          data-testid="ftp-pasv-mode"
        />
        {form.pasvMode === 'fixed' && <TextInput label={ftpText('pasvAddress')} placeholder="203.0.113.7" {...b.text('pasvAddress')} styles={mono} maw={360} data-testid="ftp-pasv-address" />}
        {form.pasvMode === 'ddns' && (
          <Select
            label={ftpText('pasvDdnsTask')}
            data={(tasks ?? []).map((t) => ({ value: t.key, label: t.name }))}
            value={form.pasvDdnsTask || null}
            onChange={(v) => f.set({ pasvDdnsTask: v ?? '' })}
            error={err('pasvDdnsTask')}
            nothingFoundMessage={ftpText('noDdnsTasks')}
            placeholder={tasks && tasks.length === 0 ? ftpText('noDdnsTasks') : undefined}
            maw={360}
            data-testid="ftp-pasv-ddns"
          />
        )}
        <Divider />
        <MountsEditor value={form} set={f.set} err={err} testPrefix="ftp" />
        <Divider />
        <SegmentedField
          label={ftpText('tls')}
          description={ftpText('tlsHint')}
          data={(['off', 'explicit', 'implicit'] as const).map((m) => ({ value: m, label: ftpText(`tls.${m}`) }))}
          value={form.tls}
          onChange={(v) => f.set({ tls: v as Form['tls'] })}
          data-testid="ftp-tls"
        />
        {form.tls === 'explicit' && <Switch label={ftpText('requireTls')} description={ftpText('requireTlsHint')} {...b.check('requireTls')} data-testid="ftp-require-tls" />}
        {form.tls !== 'off' && <CertListEditor value={form.certs} sources={TLS_CERT_SOURCES} onChange={(certs) => f.set({ certs })} errorAt={(field) => err(`certs.${field}`)} error={err('certs')} testPrefix="ftp-cert" />}
        <Divider />
        <Switch label={ftpText('anonymous')} description={ftpText('anonymousHint')} {...b.check('anonymous')} data-testid="ftp-anonymous" />
        <Group grow align="flex-start">
          <WholeNumberInput label={ftpText('maxConnections')} min={1} max={10000} allowNegative={false} {...b.number('maxConnections')} data-testid="ftp-max-connections" />
          <WholeNumberInput label={ftpText('maxPerUser')} min={1} max={10000} allowNegative={false} {...b.number('maxPerUser')} data-testid="ftp-max-per-user" />
          <WholeNumberInput label={ftpText('idleTimeout')} min={10} max={86400} allowNegative={false} {...b.number('idleTimeout')} data-testid="ftp-idle-timeout" />
        </Group>
        <TextInput label={ftpText('note')} {...b.text('note')} data-testid="ftp-note" />
      </Stack>
    </FormFrame>
  );
}
