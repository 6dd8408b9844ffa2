/** One storage at the root, or storages as named top-level folders; storages come from the storage list. */
import { ActionIcon, Alert, Button, Group, Select, Stack, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { SegmentedField } from '../fields/SegmentedField';
import { kitText } from '../texts';
import type { FolderForm, MountMode, MountsForm } from './mounts';
import { storageChoicesQuery } from './queries';

export interface MountsEditorProps {
  value: MountsForm;
  set: (patch: Partial<MountsForm>) => void;
  err: (field: string) => string | undefined;
  /** The module's data-testid prefix (`webdav` gives `webdav-mounts`, `webdav-folder`…). */
  testPrefix: string;
}

export function MountsEditor({ value: form, set, err, testPrefix: t }: MountsEditorProps) {
  const storages = useQuery(storageChoicesQuery()).data?.list;
  const known = new Set((storages ?? []).map((s) => s.key));
  const chosen = [form.rootStorage, ...form.folders.map((m) => m.storage)].filter((k) => k !== '');
  const data = [
    ...(storages ?? []).map((s) => ({ value: s.key, label: s.enable ? s.name : kitText('storageOff', { name: s.name }) })),
    // A storage deleted since the rule was saved stays visible, so it can be replaced.
    ...[...new Set(chosen)].filter((k) => storages && !known.has(k)).map((k) => ({ value: k, label: kitText('storageMissing', { key: k }) })),
  ];
  const setFolder = (i: number, patch: Partial<FolderForm>) => set({ folders: form.folders.map((m, j) => (j === i ? { ...m, ...patch } : m)) });
  const switchMode = (mode: MountMode) => {
    // The other mode's choice carries over: the root storage becomes the first folder and back.
    if (mode === 'folders' && form.folders.length === 0) set({ mountMode: mode, folders: [{ name: '', storage: form.rootStorage }] });
    else if (mode === 'root' && form.rootStorage === '') set({ mountMode: mode, rootStorage: form.folders[0]?.storage ?? '' });
    else set({ mountMode: mode });
  };
  return (
    <Stack gap="xs" data-testid={`${t}-mounts`}>
      <SegmentedField
        label={kitText('mounts')}
        description={kitText('mountsHint')}
        data={(['root', 'folders'] as const).map((m) => ({ value: m, label: kitText(`mountMode.${m}`) }))}
        value={form.mountMode}
        onChange={(v) => switchMode(v as MountMode)}
        data-testid={`${t}-mount-mode`}
      />
      {storages && storages.length === 0 && (
        <Alert color="orange" p="xs" data-testid={`${t}-no-storages`}>
          {kitText('noStorages')}
        </Alert>
      )}
      {form.mountMode === 'root' ? (
        <Select
          label={kitText('mountStorage')}
          withAsterisk
          data={data}
          value={form.rootStorage || null}
          onChange={(v) => set({ rootStorage: v ?? '' })}
          error={err('rootStorage')}
          maw={360}
          data-testid={`${t}-root-storage`}
        />
      ) : (
        <>
          {form.folders.map((m, i) => (
            <Group key={i} align="flex-start" gap="xs" wrap="nowrap" data-testid={`${t}-folder`}>
              <TextInput
                label={i === 0 ? kitText('mountName') : undefined}
                placeholder="photos"
                value={m.name}
                onChange={(e) => setFolder(i, { name: e.currentTarget.value })}
                error={err(`mounts.${i}.name`)}
                style={{ flex: 1 }}
                data-testid={`${t}-folder-name`}
              />
              <Select
                label={i === 0 ? kitText('mountStorage') : undefined}
                data={data}
                value={m.storage || null}
                onChange={(v) => setFolder(i, { storage: v ?? '' })}
                error={err(`mounts.${i}.storage`)}
                style={{ flex: 1 }}
                data-testid={`${t}-folder-storage`}
              />
              <ActionIcon
                variant="subtle"
                color="red"
                mt={i === 0 ? 28 : 4}
                onClick={() => set({ folders: form.folders.filter((_, j) => j !== i) })}
                aria-label={kitText('mountRemove')}
                data-testid={`${t}-folder-remove`}
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
          <Button variant="light" size="xs" w="fit-content" onClick={() => set({ folders: [...form.folders, { name: '', storage: '' }] })} data-testid={`${t}-folder-add`}>
            {kitText('mountAdd')}
          </Button>
        </>
      )}
    </Stack>
  );
}
