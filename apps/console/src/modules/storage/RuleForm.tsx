/** Add/edit a storage: name, local directory with a check of it on the daemon, read-only, quota with its unit, note. */
import { Alert, Button, Group, NumberInput, Select, Stack, Switch, Text, TextInput } from '@mantine/core';
import { storageRoutes, type RouteResponse } from '@lucky/contracts';
import { useMutation } from '@tanstack/react-query';
import { ApiError, call } from '../../api';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import { NameAndSwitch } from '../../kit/fields/NameAndSwitch';
import { HINT_BELOW, mono } from '../../kit/fields/styles';
import { useRuleForm, type RuleFormProps } from '../../kit/rule-dialog/useRuleForm';
import { formatBytes } from '../../lib/helpers';
import { checkRule, emptyForm, formToRule, QUOTA_UNITS, toForm, type QuotaUnit } from './form';
import { storageText } from './i18n';
import { storageRules } from './ruleModule';

type PathCheck = RouteResponse<typeof storageRoutes.checkPath>;

export function RuleForm(props: RuleFormProps<typeof storageRoutes>) {
  const f = useRuleForm(storageRules, props, { empty: emptyForm, toForm, toInput: formToRule, check: checkRule });
  const { form, err } = f;
  const b = bindFields(form, f.set, err);
  // Asked with the path as typed; its answer goes when the path changes.
  const check = useMutation<PathCheck | { error: string }, Error, string>({
    mutationFn: async (path) => {
      try {
        return await call(storageRoutes.checkPath, { body: { path } }, { silent: true });
      } catch (e) {
        return { error: e instanceof ApiError ? e.message : String(e) };
      }
    },
  });
  const answer = check.data && check.variables === form.path.trim() ? check.data : null;

  return (
    <FormFrame {...f.frame} problemListTitle={storageText('formErrors')}>
      <Stack gap="sm">
        <NameAndSwitch
          name={{ label: storageText('name'), withAsterisk: true, ...b.text('name'), 'data-testid': 'storage-name' }}
          enable={{ label: storageText('enable'), ...b.check('enable'), 'data-testid': 'storage-enable' }}
        />
        <Group align="flex-start" gap="xs" wrap="nowrap">
          <TextInput
            label={storageText('path')}
            description={storageText('pathHint')}
            withAsterisk
            placeholder="/mnt/data"
            {...b.text('path')}
            styles={mono}
            inputWrapperOrder={HINT_BELOW}
            style={{ flex: 1 }}
            data-testid="storage-path"
          />
          <Button variant="light" mt={25} onClick={() => check.mutate(form.path.trim())} loading={check.isPending} disabled={form.path.trim() === ''} data-testid="storage-check">
            {storageText('check')}
          </Button>
        </Group>
        {answer && <PathCheckResult answer={answer} />}
        <Switch label={storageText('readOnly')} description={storageText('readOnlyHint')} {...b.check('readOnly')} data-testid="storage-readonly" />
        <Group align="flex-start" gap="xs" wrap="nowrap">
          <NumberInput
            label={storageText('quota')}
            description={storageText('quotaHint')}
            min={0}
            allowNegative={false}
            decimalScale={6}
            clampBehavior="none"
            {...b.number('quota')}
            inputWrapperOrder={HINT_BELOW}
            style={{ flex: 1 }}
            data-testid="storage-quota"
          />
          <Select
            label={storageText('quotaUnit')}
            data={Object.keys(QUOTA_UNITS)}
            value={form.quotaUnit}
            onChange={(v) => v && f.set({ quotaUnit: v as QuotaUnit })}
            allowDeselect={false}
            w={100}
            data-testid="storage-quota-unit"
          />
        </Group>
        <TextInput label={storageText('note')} {...b.text('note')} data-testid="storage-note" />
      </Stack>
    </FormFrame>
  );
}

/** What the daemon found at the path: usable (green) or why not (red), with the disk's space. */
function PathCheckResult({ answer }: { answer: PathCheck | { error: string } }) {
  if ('error' in answer) {
    return (
      <Alert color="red" p="xs" data-testid="storage-check-result" data-ok="false">
        {answer.error}
      </Alert>
    );
  }
  const ok = answer.exists && answer.directory;
  const facts = [
    answer.exists ? storageText('checkExists') : storageText('checkMissing'),
    ...(answer.exists && !answer.directory ? [storageText('checkNotDir')] : []),
    ...(ok ? [answer.writable ? storageText('checkWritable') : storageText('checkNotWritable')] : []),
    ...(ok ? [storageText('checkSpace', { free: formatBytes(answer.fsFree), total: formatBytes(answer.fsTotal) })] : []),
  ];
  return (
    <Alert color={ok ? (answer.writable ? 'green' : 'orange') : 'red'} p="xs" data-testid="storage-check-result" data-ok={String(ok)} data-writable={String(answer.writable)}>
      <Text fz="sm">{facts.join(' · ')}</Text>
      {answer.msg && (
        <Text fz="xs" c="dimmed">
          {answer.msg}
        </Text>
      )}
    </Alert>
  );
}
