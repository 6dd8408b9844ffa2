/** Add/edit a WebDAV server: listen address and port, HTTPS with its certificates, path prefix, the mounted storages, lock timeout, note. */
import { ActionIcon, Alert, Button, Divider, Group, Select, Stack, Switch, Text, TextInput } from '@mantine/core';
import type { webdavRoutes } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import { AddressPortFields } from '../../kit/fields/AddressPortFields';
import { NameAndSwitch } from '../../kit/fields/NameAndSwitch';
import { SegmentedField } from '../../kit/fields/SegmentedField';
import { HINT_BELOW, mono } from '../../kit/fields/styles';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import { useRuleForm, type RuleFormProps } from '../../kit/rule-dialog/useRuleForm';
import { CertListEditor } from '../../kit/tls/CertEditor';
import { checkRule, emptyForm, formToRule, toForm, type MountMode, type RuleForm as Form } from './form';
import { webdavText } from './i18n';
import { storageChoicesQuery } from './queries';
import { webdavRules } from './ruleModule';

export function RuleForm(props: RuleFormProps<typeof webdavRoutes>) {
  const f = useRuleForm(webdavRules, props, { empty: emptyForm, toForm, toInput: formToRule, check: checkRule });
  const { form, err } = f;
  const b = bindFields(form, f.set, err);
  return (
    <FormFrame {...f.frame} problemListTitle={webdavText('formErrors')}>
      <Stack gap="sm">
        <NameAndSwitch
          name={{ label: webdavText('name'), withAsterisk: true, ...b.text('name'), 'data-testid': 'webdav-name' }}
          enable={{ label: webdavText('enable'), ...b.check('enable'), 'data-testid': 'webdav-enable' }}
        />
        <AddressPortFields
          address={{ label: webdavText('address'), description: webdavText('addressHint'), placeholder: '0.0.0.0', ...b.text('address'), 'data-testid': 'webdav-address' }}
          port={{ label: webdavText('port'), withAsterisk: true, ...b.number('port'), 'data-testid': 'webdav-port' }}
        />
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
        <MountsEditor form={form} set={f.set} err={err} />
        <Divider />
        <Switch label={webdavText('tls')} description={webdavText('tlsHint')} {...b.check('tls')} data-testid="webdav-tls" />
        {form.tls && <CertListEditor value={form.certs} onChange={(certs) => f.set({ certs })} errorAt={(field) => err(`certs.${field}`)} error={err('certs')} testPrefix="webdav-cert" />}
        <TextInput label={webdavText('note')} {...b.text('note')} data-testid="webdav-note" />
      </Stack>
    </FormFrame>
  );
}

/** One storage at the root, or storages as named top-level folders; storages come from the storage list. */
function MountsEditor({ form, set, err }: { form: Form; set: (patch: Partial<Form>) => void; err: (field: string) => string | undefined }) {
  const storages = useQuery(storageChoicesQuery()).data?.list;
  const known = new Set((storages ?? []).map((s) => s.key));
  const chosen = [form.rootStorage, ...form.folders.map((m) => m.storage)].filter((k) => k !== '');
  const data = [
    ...(storages ?? []).map((s) => ({ value: s.key, label: s.enable ? s.name : webdavText('storageOff', { name: s.name }) })),
    // A storage deleted since the rule was saved stays visible, so it can be replaced.
    ...[...new Set(chosen)].filter((k) => storages && !known.has(k)).map((k) => ({ value: k, label: webdavText('storageMissing', { key: k }) })),
  ];
  const setFolder = (i: number, patch: Partial<Form['folders'][number]>) => set({ folders: form.folders.map((m, j) => (j === i ? { ...m, ...patch } : m)) });
  const switchMode = (mode: MountMode) => {
    // The other mode's choice carries over: the root storage becomes the first folder and back.
    if (mode === 'folders' && form.folders.length === 0) set({ mountMode: mode, folders: [{ name: '', storage: form.rootStorage }] });
    else if (mode === 'root' && form.rootStorage === '') set({ mountMode: mode, rootStorage: form.folders[0]?.storage ?? '' });
    else set({ mountMode: mode });
  };
  return (
    <Stack gap="xs" data-testid="webdav-mounts">
      <SegmentedField
        label={webdavText('mounts')}
        description={webdavText('mountsHint')}
        data={(['root', 'folders'] as const).map((m) => ({ value: m, label: webdavText(`mountMode.${m}`) }))}
        value={form.mountMode}
        onChange={(v) => switchMode(v as MountMode)}
        data-testid="webdav-mount-mode"
      />
      {storages && storages.length === 0 && (
        <Alert color="orange" p="xs" data-testid="webdav-no-storages">
          {webdavText('noStorages')}
        </Alert>
      )}
      {form.mountMode === 'root' ? (
        <Select
          label={webdavText('mountStorage')}
          withAsterisk
          data={data}
          value={form.rootStorage || null}
          onChange={(v) => set({ rootStorage: v ?? '' })}
          error={err('rootStorage')}
          maw={360}
          data-testid="webdav-root-storage"
        />
      ) : (
        <>
          {form.folders.map((m, i) => (
            <Group key={i} align="flex-start" gap="xs" wrap="nowrap" data-testid="webdav-folder">
              <TextInput
                label={i === 0 ? webdavText('mountName') : undefined}
                placeholder="photos"
                value={m.name}
                onChange={(e) => setFolder(i, { name: e.currentTarget.value })}
                error={err(`mounts.${i}.name`)}
                style={{ flex: 1 }}
                data-testid="webdav-folder-name"
              />
              <Select
                label={i === 0 ? webdavText('mountStorage') : undefined}
                data={data}
                value={m.storage || null}
                onChange={(v) => setFolder(i, { storage: v ?? '' })}
                error={err(`mounts.${i}.storage`)}
                style={{ flex: 1 }}
                data-testid="webdav-folder-storage"
              />
              <ActionIcon
                variant="subtle"
                color="red"
                mt={i === 0 ? 28 : 4}
                onClick={() => set({ folders: form.folders.filter((_, j) => j !== i) })}
                aria-label={webdavText('mountRemove')}
                data-testid="webdav-folder-remove"
              >
                ✕
              </ActionIcon>
            </Group>
          ))}
          {err('mounts') && !form.folders.length && (
            <Text fz="xs" c="red">
              {err('mounts')}
            </Text>
          )}
          <Button variant="light" size="xs" w="fit-content" onClick={() => set({ folders: [...form.folders, { name: '', storage: '' }] })} data-testid="webdav-folder-add">
            {webdavText('mountAdd')}
          </Button>
        </>
      )}
    </Stack>
  );
}
