/**
 * The storage users under the storage list: one table that is also the permission matrix (users ×
 * storages, read/write/delete; write and delete closed on read-only storages), the anonymous user
 * as its last row, and the add/edit dialog. Every change PUTs the whole settings object; passwords
 * come back as the mask, which keeps them.
 */
import { ActionIcon, Alert, Button, Checkbox, Group, Modal, Skeleton, Stack, Switch, Table, Text, Textarea, TextInput, Tooltip } from '@mantine/core';
import { parseAuthorizedKeys, SECRET_MASK, storageRoutes, type StorageConfigure, type StorageView } from '@lucky/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { call } from '../../api';
import { pushNotice } from '../../api/notices';
import { TitledCard } from '../../shell/TitledCard';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame, savingFrame } from '../../kit/form/FormFrame';
import { useSavingForm } from '../../kit/form/useSavingForm';
import { SecretInput } from '../../kit/fields/SecretInput';
import { ConfirmDelete } from '../../kit/rule-list/ConfirmDelete';
import { checkUser, emptyUser, PERMISSION_OPS, permissionOf, publicKeysSummary, userToForm, withAnonymous, withoutUser, withPermission, withUser, type PermissionOp } from './form';
import { storageText } from './i18n';
import { storageQueries } from './queries';

const keys = storageQueries.keys;

/**
 * The whole settings object to the daemon, then read back. A switch or box of the table is
 * controlled by the settings, so the change is shown at once (the draft) instead of flipping back
 * until the read-back; the table stays usable meanwhile (changes are sent one after the other, each
 * built on the one before) and shows the daemon's settings again once saved or refused.
 */
function useSaveUsers(saved: StorageConfigure | undefined) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<StorageConfigure | null>(null);
  const mutation = useMutation({
    scope: { id: 'storage-configure' },
    mutationFn: (body: StorageConfigure) => call(storageRoutes.putConfigure, { body }),
    onSuccess: () => pushNotice(storageText('usersSaved'), 'green'),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.configure }),
  });
  const apply = (body: StorageConfigure, after?: () => void) => {
    setDraft(body);
    mutation.mutate(body, {
      onSettled: () => {
        setDraft((d) => (d === body ? null : d));
        after?.();
      },
    });
  };
  return { shown: draft ?? saved, apply, pending: mutation.isPending };
}

export function UsersSection(props: { storages: StorageView[] }) {
  const configure = useQuery(storageQueries.configure());
  const save = useSaveUsers(configure.data?.configure);
  // The dialog's user stays until its closing transition has ended: its title does not change while
  // it fades, and the form is gone only once nothing covers the table any more.
  const [editing, setEditing] = useState<{ index: number | null; open: boolean } | null>(null);
  const closeEditing = () => setEditing((e) => e && { ...e, open: false });
  const [deleting, setDeleting] = useState<number | null>(null);
  const c = save.shown;
  const { storages } = props;

  const title = (
    <Group justify="space-between" mb="xs">
      <Text fz="xs" c="dimmed">
        {storageText('usersHint')}
      </Text>
      <Button size="xs" onClick={() => setEditing({ index: null, open: true })} disabled={!c} data-testid="storage-user-add">
        {storageText('userAdd')}
      </Button>
    </Group>
  );

  return (
    <TitledCard title={storageText('usersTitle')} data-testid="storage-users">
      {title}
      {!c ? (
        configure.isError ? <Alert color="red">{configure.error.message}</Alert> : <Skeleton h={80} />
      ) : (
        <>
          {storages.length === 0 && (
            <Alert color="blue" p="xs" mb="xs" data-testid="storage-users-no-storages">
              {storageText('noStorages')}
            </Alert>
          )}
          <Table.ScrollContainer minWidth={400 + storages.length * 150}>
            <Table striped verticalSpacing="xs" data-testid="storage-users-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{storageText('colAccount')}</Table.Th>
                  <Table.Th>{storageText('colUserEnable')}</Table.Th>
                  {storages.map((s) => (
                    <Table.Th key={s.key} data-testid="storage-perm-head" data-storage={s.key}>
                      {s.name}
                      {s.readOnly && (
                        <Text span fz="xs" c="dimmed">
                          {' '}
                          ({storageText('readOnly')})
                        </Text>
                      )}
                    </Table.Th>
                  ))}
                  <Table.Th>{storageText('colActions')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {c.users.map((u, i) => (
                  <Table.Tr key={u.account} data-testid="storage-user-row" data-account={u.account}>
                    <Table.Td>
                      <Text fz="sm" fw={500}>
                        {u.account}
                      </Text>
                      <UserKeys publicKeys={u.publicKeys} />
                      {u.note && (
                        <Text fz="xs" c="dimmed" truncate="end" maw={200}>
                          {u.note}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Switch
                        checked={u.enable}
                        onChange={(e) => save.apply({ ...c, users: c.users.map((x, j) => (j === i ? { ...x, enable: e.currentTarget.checked } : x)) })}
                        aria-label={storageText('colUserEnable')}
                        data-testid="storage-user-toggle"
                      />
                    </Table.Td>
                    {storages.map((s) => (
                      <Table.Td key={s.key}>
                        <PermissionBoxes
                          storage={s}
                          value={permissionOf(u, s.key)}
                          onChange={(op, on) => save.apply(withPermission(c, i, s.key, op, on, s.readOnly))}
                        />
                      </Table.Td>
                    ))}
                    <Table.Td>
                      <Group gap={6} wrap="nowrap">
                        <Button size="xs" variant="default" onClick={() => setEditing({ index: i, open: true })} data-testid="storage-user-edit">
                          {storageText('editShort')}
                        </Button>
                        <ActionIcon variant="subtle" color="red" onClick={() => setDeleting(i)} aria-label={storageText('delete')} data-testid="storage-user-delete">
                          ✕
                        </ActionIcon>
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))}
                <Table.Tr data-testid="storage-anon-row">
                  <Table.Td>
                    <Text fz="sm" fw={500}>
                      {storageText('anonymous')}
                    </Text>
                    <Text fz="xs" c="dimmed">
                      {storageText('anonymousHint')}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Switch
                      checked={c.anonymous.enable}
                      onChange={(e) => save.apply(withAnonymous(c, { enable: e.currentTarget.checked }))}
                      aria-label={storageText('anonymous')}
                      data-testid="storage-anon-enable"
                    />
                  </Table.Td>
                  {storages.map((s) => (
                    <Table.Td key={s.key}>
                      <Checkbox
                        size="xs"
                        label={storageText('perm.read')}
                        checked={c.anonymous.storages.includes(s.key)}
                        disabled={!c.anonymous.enable}
                        onChange={(e) => save.apply(withAnonymous(c, { storage: s.key, on: e.currentTarget.checked }))}
                        data-testid="storage-anon-read"
                        data-storage={s.key}
                      />
                    </Table.Td>
                  ))}
                  <Table.Td />
                </Table.Tr>
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          {c.users.length === 0 && (
            <Text fz="sm" c="dimmed" ta="center" p="xs" data-testid="storage-users-empty">
              {storageText('noUsers')}
            </Text>
          )}
          <Modal
            opened={editing?.open === true}
            onClose={closeEditing}
            onExitTransitionEnd={() => setEditing(null)}
            title={editing?.index === null ? storageText('userAdd') : storageText('userEdit')}
            // Wide enough for a public key line (they scroll sideways, never wrap).
            size="lg"
            closeOnClickOutside={false}
            data-testid="storage-user-form"
          >
            {editing && <UserForm configure={c} index={editing.index} onClose={closeEditing} />}
          </Modal>
          <ConfirmDelete
            name={deleting === null ? null : (c.users[deleting]?.account ?? '')}
            title={storageText('userDeleteTitle')}
            message={storageText('userDeleteConfirm', { name: deleting === null ? '' : (c.users[deleting]?.account ?? '') })}
            text={storageText}
            loading={save.pending}
            onCancel={() => setDeleting(null)}
            onConfirm={() => deleting !== null && save.apply(withoutUser(c, deleting), () => setDeleting(null))}
            testId="storage-user-delete-confirm"
          />
        </>
      )}
    </TitledCard>
  );
}

/** One cell of the matrix: read, write, delete of one user on one storage. */
function PermissionBoxes(props: { storage: StorageView; value: Record<PermissionOp, boolean>; onChange: (op: PermissionOp, on: boolean) => void }) {
  return (
    <Group gap={8} wrap="nowrap">
      {PERMISSION_OPS.map((op) => {
        const closed = op !== 'read' && props.storage.readOnly;
        return (
          <Tooltip key={op} label={closed ? storageText('permReadOnly') : storageText(`permHint.${op}`)}>
            <Checkbox
              size="xs"
              label={storageText(`perm.${op}`)}
              checked={props.value[op] && !closed}
              disabled={closed}
              onChange={(e) => props.onChange(op, e.currentTarget.checked)}
              data-testid="storage-perm"
              data-storage={props.storage.key}
              data-op={op}
            />
          </Tooltip>
        );
      })}
    </Group>
  );
}

/** Add or edit one user: the list around it goes back as it was. */
function UserForm(props: { configure: StorageConfigure; index: number | null; onClose: () => void }) {
  const { configure, index } = props;
  const saved = index === null ? undefined : configure.users[index];
  const form = useSavingForm({
    initial: () => (saved ? userToForm(saved) : emptyUser()),
    check: (f) => checkUser(configure, index, f),
    toBody: (f) => withUser(configure, index, f),
    send: (body: StorageConfigure) => call(storageRoutes.putConfigure, { body }, { silent: true }),
    savedText: storageText('usersSaved'),
    invalidate: keys.configure,
    onSaved: props.onClose,
  });
  const b = bindFields(form.form, form.set, form.err);
  const frame = savingFrame(form, props.onClose, storageText, { save: 'storage-user-save', problems: 'storage-user-error', serverError: 'storage-user-server-error' });
  return (
    <FormFrame {...frame} problemsOnFieldsOnly>
      <Stack gap="sm">
        <TextInput label={storageText('account')} description={storageText('accountHint')} withAsterisk {...b.text('account')} autoComplete="off" data-testid="storage-user-account" />
        <SecretInput label={storageText('password')} value={form.form.password} onChange={(password) => form.set({ password })} error={form.err('password')} testId="storage-user-password" />
        <Text fz="xs" c="dimmed" mt={-8}>
          {saved ? storageText('passwordKeep', { mask: SECRET_MASK }) : storageText('passwordNew')}
        </Text>
        <Switch label={storageText('enable')} {...b.check('enable')} data-testid="storage-user-enable" />
        <PublicKeysField value={form.form.publicKeys} onChange={(publicKeys) => form.set({ publicKeys })} error={form.err('publicKeys')} />
        <TextInput label={storageText('userNote')} {...b.text('note')} data-testid="storage-user-note" />
      </Stack>
    </FormFrame>
  );
}

/** Under a user's account in the table: how many public keys it has (nothing when none). */
function UserKeys({ publicKeys }: { publicKeys: string }) {
  const n = useMemo(() => parseAuthorizedKeys(publicKeys).filter((l) => 'key' in l).length, [publicKeys]);
  if (n === 0) return null;
  return (
    <Text fz="xs" c="dimmed" data-testid="storage-user-keys" data-value={n}>
      {storageText('userKeys', { n })}
    </Text>
  );
}

/**
 * The user's OpenSSH public keys, one `authorized_keys` line each: the number of usable keys and
 * each line's problem are shown as they are typed; `error` is the form's own check (on save).
 */
function PublicKeysField(props: { value: string; onChange: (v: string) => void; error: string | undefined }) {
  const summary = useMemo(() => publicKeysSummary(props.value), [props.value]);
  const problems = summary.problems.length > 0 && (
    <Stack gap={0} component="span">
      {summary.problems.map((p) => (
        <span key={p.line} data-testid="storage-user-key-problem" data-line={p.line}>
          {p.message}
        </span>
      ))}
    </Stack>
  );
  return (
    <Stack gap={4}>
      <Textarea
        label={storageText('publicKeys')}
        description={storageText('publicKeysHint')}
        placeholder="ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA… user@laptop"
        autosize
        minRows={2}
        maxRows={8}
        value={props.value}
        onChange={(e) => props.onChange(e.currentTarget.value)}
        error={problems || props.error}
        spellCheck={false}
        autoComplete="off"
        styles={{ input: { fontFamily: 'monospace', fontSize: 12, whiteSpace: 'pre', overflowX: 'auto' } }}
        data-testid="storage-user-keys-input"
      />
      <Text fz="xs" c="dimmed" data-testid="storage-user-keys-count" data-value={summary.count}>
        {summary.count > 0 ? storageText('publicKeysCount', { n: summary.count }) : storageText('publicKeysNone')}
      </Text>
    </Stack>
  );
}
