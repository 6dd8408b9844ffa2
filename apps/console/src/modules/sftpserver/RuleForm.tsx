/**
 * Add/edit an SFTP server: listen address and port, the mounted storages, which logins it takes
 * (the storage users' passwords, their public keys), limits, note.
 */
import { Divider, Group, Stack, Switch, TextInput } from '@mantine/core';
import type { sftpserverRoutes } from '@lucky/contracts';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import { useRuleForm, type RuleFormProps } from '../../kit/rule-dialog/useRuleForm';
import { MountsEditor } from '../../kit/storage/MountsEditor';
import { ServerFields } from '../../kit/storage/ServerFields';
import { checkRule, emptyForm, formToRule, toForm } from './form';
import { sftpText } from './i18n';
import { sftpRules } from './ruleModule';

export function RuleForm(props: RuleFormProps<typeof sftpserverRoutes>) {
  const f = useRuleForm(sftpRules, props, { empty: emptyForm, toForm, toInput: formToRule, check: checkRule });
  const { form, err } = f;
  const b = bindFields(form, f.set, err);
  return (
    <FormFrame {...f.frame} problemListTitle={sftpText('formErrors')}>
      <Stack gap="sm">
        <ServerFields form={form} set={f.set} err={err} text={sftpText} anyAddress="::" testPrefix="sftp" />
        <Divider />
        <MountsEditor value={form} set={f.set} err={err} testPrefix="sftp" />
        <Divider />
        <Switch label={sftpText('passwordLogin')} description={sftpText('passwordLoginHint')} {...b.check('passwordLogin')} data-testid="sftp-password-login" />
        <Switch
          label={sftpText('keyLogin')}
          description={sftpText('keyLoginHint')}
          {...b.check('keyLogin')}
          error={err('keyLogin')}
          data-testid="sftp-key-login"
        />
        <Divider />
        <Group grow align="flex-start">
          <WholeNumberInput label={sftpText('maxConnections')} min={1} max={10000} allowNegative={false} {...b.number('maxConnections')} data-testid="sftp-max-connections" />
          <WholeNumberInput label={sftpText('maxPerUser')} min={1} max={10000} allowNegative={false} {...b.number('maxPerUser')} data-testid="sftp-max-per-user" />
          <WholeNumberInput label={sftpText('idleTimeout')} min={10} max={86400} allowNegative={false} {...b.number('idleTimeout')} data-testid="sftp-idle-timeout" />
        </Group>
        <TextInput label={sftpText('note')} {...b.text('note')} data-testid="sftp-note" />
      </Stack>
    </FormFrame>
  );
}
