/**
 * Add/edit a storage: name, its kind — a local directory (with a check of it on the daemon) or a
 * remote WebDAV, SFTP or S3 server (its settings, secrets shown masked, the listing cache, and "test
 * connection", which also offers to pin the host key an SFTP server showed) — read-only, quota with
 * its unit, note.
 */
import { Alert, Button, Group, NumberInput, Select, Stack, Switch, Text, Textarea, TextInput } from '@mantine/core';
import { SECRET_MASK, storageRoutes, type RouteResponse } from '@lucky/contracts';
import { useMutation } from '@tanstack/react-query';
import { ApiError, call } from '../../api';
import { NameAndSwitch } from '../../kit/fields/NameAndSwitch';
import { SecretInput } from '../../kit/fields/SecretInput';
import { SegmentedField } from '../../kit/fields/SegmentedField';
import { HINT_BELOW, mono } from '../../kit/fields/styles';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import { errorText, TestResult } from '../../kit/form/TestRun';
import { useRuleForm, type RuleFormProps } from '../../kit/rule-dialog/useRuleForm';
import { kitText } from '../../kit/texts';
import { isMask } from '../../kit/webhook/request';
import { formatBytes } from '../../lib/helpers';
import { checkRule, emptyForm, formToRule, hostKeyToPin, KINDS, QUOTA_UNITS, remoteTestBody, toForm, type QuotaUnit, type RemoteTestAnswer, type RemoteTestBody, type RuleForm as Form } from './form';
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
        <SegmentedField
          label={storageText('kind')}
          description={storageText('kindHint')}
          data={KINDS.map((k) => ({ value: k, label: storageText(`kind.${k}`) }))}
          {...b.choice('kind')}
          data-testid="storage-kind"
        />
        {form.kind === 'local' ? (
          <>
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
          </>
        ) : (
          <>
            <RemoteFields form={form} set={f.set} err={err} />
            <WholeNumberInput
              label={storageText('cacheSeconds')}
              description={storageText('cacheSecondsHint')}
              min={0}
              max={3600}
              {...b.number('cacheSeconds')}
              inputWrapperOrder={HINT_BELOW}
              w={260}
              data-testid="storage-cache-seconds"
            />
            <RemoteTest form={form} storageKey={props.editing.key} set={f.set} />
          </>
        )}
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

type Set = (patch: Partial<Form>) => void;
type Err = (field: string) => string | undefined;

/** The settings of the remote kind chosen: each kind's own object, its errors under `<kind>.`. */
function RemoteFields({ form, set, err }: { form: Form; set: Set; err: Err }) {
  const dav = bindFields(form.webdav, (c) => set({ webdav: { ...form.webdav, ...c } }), err, 'webdav.');
  const sftp = bindFields(form.sftp, (c) => set({ sftp: { ...form.sftp, ...c } }), err, 'sftp.');
  const s3 = bindFields(form.s3, (c) => set({ s3: { ...form.s3, ...c } }), err, 's3.');
  switch (form.kind) {
    case 'webdav':
      return (
        <>
          <TextInput
            label={storageText('webdavUrl')}
            description={storageText('webdavUrlHint')}
            withAsterisk
            placeholder="https://"
            {...dav.text('url')}
            styles={mono}
            inputWrapperOrder={HINT_BELOW}
            data-testid="storage-webdav-url"
          />
          <Group grow align="flex-start">
            <TextInput label={storageText('remoteUsername')} autoComplete="off" {...dav.text('username')} data-testid="storage-webdav-username" />
            <SecretInput label={storageText('remotePassword')} {...secretOf(form, set, err, 'webdav', 'password')} testId="storage-webdav-password" />
          </Group>
          <Switch label={storageText('skipTlsVerify')} description={storageText('skipTlsVerifyHint')} {...dav.check('skipTlsVerify')} data-testid="storage-webdav-skiptls" />
        </>
      );
    case 'sftp':
      return (
        <>
          <Group align="flex-start" gap="xs" wrap="nowrap">
            <TextInput label={storageText('sftpHost')} withAsterisk placeholder="nas.lan" {...sftp.text('host')} styles={mono} style={{ flex: 1 }} data-testid="storage-sftp-host" />
            <WholeNumberInput label={storageText('sftpPort')} min={1} max={65535} {...sftp.number('port')} w={110} data-testid="storage-sftp-port" />
          </Group>
          <Group grow align="flex-start">
            <TextInput label={storageText('remoteUsername')} withAsterisk autoComplete="off" {...sftp.text('username')} data-testid="storage-sftp-username" />
            <SecretInput label={storageText('remotePassword')} {...secretOf(form, set, err, 'sftp', 'password')} testId="storage-sftp-password" />
          </Group>
          <Textarea
            label={storageText('privateKey')}
            description={[storageText('privateKeyHint'), ...(isMask(form.sftp.privateKey) ? [kitText('secretKept', { mask: SECRET_MASK })] : [])].join(' · ')}
            placeholder="-----BEGIN OPENSSH PRIVATE KEY-----"
            autosize
            minRows={2}
            maxRows={6}
            {...sftp.text('privateKey')}
            onFocus={(e) => isMask(e.currentTarget.value) && e.currentTarget.select()}
            styles={mono}
            inputWrapperOrder={HINT_BELOW}
            data-testid="storage-sftp-privatekey"
          />
          <TextInput
            label={storageText('hostKey')}
            description={storageText('hostKeyHint')}
            withAsterisk
            placeholder="SHA256:"
            {...sftp.text('hostKey')}
            styles={mono}
            inputWrapperOrder={HINT_BELOW}
            data-testid="storage-sftp-hostkey"
          />
          <TextInput label={storageText('sftpRoot')} description={storageText('sftpRootHint')} {...sftp.text('root')} styles={mono} inputWrapperOrder={HINT_BELOW} data-testid="storage-sftp-root" />
        </>
      );
    case 's3':
      return (
        <>
          <TextInput
            label={storageText('s3Endpoint')}
            description={storageText('s3EndpointHint')}
            withAsterisk
            placeholder="https://"
            {...s3.text('endpoint')}
            styles={mono}
            inputWrapperOrder={HINT_BELOW}
            data-testid="storage-s3-endpoint"
          />
          <Group grow align="flex-start">
            <TextInput label={storageText('s3Bucket')} withAsterisk {...s3.text('bucket')} styles={mono} data-testid="storage-s3-bucket" />
            <TextInput label={storageText('s3Region')} {...s3.text('region')} styles={mono} data-testid="storage-s3-region" />
          </Group>
          <TextInput label={storageText('s3Prefix')} description={storageText('s3PrefixHint')} {...s3.text('prefix')} styles={mono} inputWrapperOrder={HINT_BELOW} data-testid="storage-s3-prefix" />
          <Group grow align="flex-start">
            <TextInput label={storageText('s3AccessKeyId')} withAsterisk autoComplete="off" {...s3.text('accessKeyId')} styles={mono} data-testid="storage-s3-accesskeyid" />
            <SecretInput label={storageText('s3SecretAccessKey')} {...secretOf(form, set, err, 's3', 'secretAccessKey')} testId="storage-s3-secret" />
          </Group>
          <Switch label={storageText('pathStyle')} description={storageText('pathStyleHint')} {...s3.check('pathStyle')} data-testid="storage-s3-pathstyle" />
        </>
      );
    default:
      return null;
  }
}

type Remote = 'webdav' | 'sftp' | 's3';

/** A remote's secret as SecretInput takes it: its value (the mask while kept), its change, its error. */
function secretOf<K extends Remote>(form: Form, set: Set, err: Err, kind: K, field: keyof Form[K] & string) {
  return {
    value: form[kind][field] as string,
    onChange: (v: string) => set({ [kind]: { ...form[kind], [field]: v } } as Partial<Form>),
    error: err(`${kind}.${field}`),
  };
}

/**
 * "Test connection": the form as it is (with the storage's key when editing: its masked secrets are the
 * stored ones); the answer in green or red; an SFTP server's host key offered to pin when it is not the one pinned.
 */
function RemoteTest({ form, storageKey, set }: { form: Form; storageKey: string | null; set: Set }) {
  const test = useMutation<RemoteTestAnswer, Error, RemoteTestBody>({ mutationFn: (body) => call(storageRoutes.testRemote, { body }, { silent: true }) });
  // An answer is about the kind it was asked for: another kind chosen, it goes.
  const current = (test.variables?.storage as { kind?: string } | undefined)?.kind === form.kind;
  const answer = current && test.data ? test.data : null;
  const failed = current && test.isError ? errorText(test.error) : null;
  const pin = answer ? hostKeyToPin(form, answer) : null;
  return (
    <Stack gap="xs">
      <Group>
        <Button variant="light" loading={test.isPending} onClick={() => test.mutate(remoteTestBody(form, storageKey))} data-testid="storage-test">
          {storageText('testRemote')}
        </Button>
      </Group>
      {answer && (
        <div data-testid="storage-test-answer" data-ok={String(answer.ok)}>
          <TestResult ok={answer.ok} testId="storage-test-result">
            {answer.msg}
          </TestResult>
        </div>
      )}
      {failed !== null && (
        <div data-testid="storage-test-answer" data-ok="false">
          <TestResult ok={false} testId="storage-test-result">
            {failed}
          </TestResult>
        </div>
      )}
      {pin && (
        <Stack gap={4}>
          <Group>
            <Button variant="outline" color="orange" size="xs" onClick={() => set({ sftp: { ...form.sftp, hostKey: pin } })} data-testid="storage-pin-hostkey" data-fingerprint={pin} styles={{ label: { fontFamily: 'monospace' } }}>
              {storageText('pinHostKey', { fingerprint: pin })}
            </Button>
          </Group>
          <Text fz="xs" c="dimmed">
            {storageText('pinHostKeyHint')}
          </Text>
        </Stack>
      )}
    </Stack>
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
