/** Add/edit a WebDAV server: listen address and port, HTTPS with its certificates, path prefix, the mounted storages, lock timeout, note. */
import { Divider, Group, Stack, Switch, TextInput } from '@mantine/core';
import type { webdavRoutes } from '@lucky/contracts';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import { HINT_BELOW, mono } from '../../kit/fields/styles';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import { useRuleForm, type RuleFormProps } from '../../kit/rule-dialog/useRuleForm';
import { MountsEditor } from '../../kit/storage/MountsEditor';
import { ServerFields } from '../../kit/storage/ServerFields';
import { CertListEditor } from '../../kit/tls/CertEditor';
import { TLS_CERT_SOURCES } from '../../kit/tls/certs';
import { checkRule, emptyForm, formToRule, toForm } from './form';
import { webdavText } from './i18n';
import { webdavRules } from './ruleModule';

export function RuleForm(props: RuleFormProps<typeof webdavRoutes>) {
  const f = useRuleForm(webdavRules, props, { empty: emptyForm, toForm, toInput: formToRule, check: checkRule });
  const { form, err } = f;
  const b = bindFields(form, f.set, err);
  return (
    <FormFrame {...f.frame} problemListTitle={webdavText('formErrors')}>
      <Stack gap="sm">
        <ServerFields form={form} set={f.set} err={err} text={webdavText} anyAddress="0.0.0.0" testPrefix="webdav" />
        <Group grow align="flex-start">
          <TextInput label={webdavText('prefix')} description={webdavText('prefixHint')} {...b.text('prefix')} styles={mono} inputWrapperOrder={HINT_BELOW} data-testid="webdav-prefix" />
          <WholeNumberInput
            label={webdavText('lockTimeout')}
            description={webdavText('lockTimeoutHint')}
            min={10}
            max={86400}
            allowNegative={false}
            {...b.number('lockTimeout')}
            inputWrapperOrder={HINT_BELOW}
            data-testid="webdav-lock-timeout"
          />
        </Group>
        <Divider />
        <MountsEditor value={form} set={f.set} err={err} testPrefix="webdav" />
        <Divider />
        <Switch label={webdavText('tls')} description={webdavText('tlsHint')} {...b.check('tls')} data-testid="webdav-tls" />
        {form.tls && <CertListEditor value={form.certs} sources={TLS_CERT_SOURCES} onChange={(certs) => f.set({ certs })} errorAt={(field) => err(`certs.${field}`)} error={err('certs')} testPrefix="webdav-cert" />}
        <TextInput label={webdavText('note')} {...b.text('note')} data-testid="webdav-note" />
      </Stack>
    </FormFrame>
  );
}
