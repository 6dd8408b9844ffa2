/** The file browser's dialogs: a name, a destination, a delete to confirm, a preview or editor, details, a share, the settings. */
import {
  Alert,
  Button,
  Checkbox,
  CopyButton,
  Group,
  Image,
  Loader,
  Modal,
  NumberInput,
  PasswordInput,
  Radio,
  Select,
  Stack,
  Table,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { FB_TEXT_MAX, type FbEntry, type FbStorage } from '@lucky/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { fbText } from './i18n';
import { fb, fbKeys, human, settingsQuery, storageUsersQuery, validName } from './queries';

type Row = FbEntry & { path: string };

function Actions(props: { onClose: () => void; submit: string; busy?: boolean; disabled?: boolean; color?: string; testId: string; onSubmit: () => void }) {
  return (
    <Group justify="flex-end" mt="md">
      <Button variant="default" onClick={props.onClose}>
        {fbText('cancel')}
      </Button>
      <Button color={props.color} loading={props.busy} disabled={props.disabled} onClick={props.onSubmit} data-testid={props.testId}>
        {props.submit}
      </Button>
    </Group>
  );
}

/** A new name: new folder, new file, rename. */
export function NameDialog(props: { title: string; initial: string; testId: string; onClose: () => void; onSubmit: (name: string) => Promise<unknown> }) {
  const [name, setName] = useState(props.initial);
  const run = useMutation({ mutationFn: () => props.onSubmit(name.trim()), onSuccess: props.onClose });
  const bad = name !== '' && !validName(name);
  return (
    <Modal opened onClose={props.onClose} title={props.title} data-testid={props.testId}>
      <TextInput
        label={fbText('name')}
        value={name}
        onChange={(e) => setName(e.currentTarget.value)}
        error={bad ? fbText('nameInvalid') : undefined}
        data-autofocus
        onKeyDown={(e) => {
          if (e.key === 'Enter' && validName(name)) run.mutate();
        }}
        data-testid="fb-name-input"
      />
      <Actions onClose={props.onClose} submit={fbText('save')} busy={run.isPending} disabled={!validName(name)} onSubmit={() => run.mutate()} testId="fb-name-save" />
    </Modal>
  );
}

export function TransferDialog(props: { kind: 'move' | 'copy'; paths: string[]; storages: FbStorage[]; storage: string; initialFolder: string; onClose: () => void; onDone: () => void }) {
  const [toStorage, setToStorage] = useState(props.storage);
  const [to, setTo] = useState(props.initialFolder);
  const [overwrite, setOverwrite] = useState(false);
  const run = useMutation({
    mutationFn: () => {
      const body = { storage: props.storage, paths: props.paths, to: to || '/', toStorage, overwrite };
      return props.kind === 'move' ? fb.move(body) : fb.copy(body);
    },
    onSuccess: () => {
      props.onDone();
      props.onClose();
    },
  });
  return (
    <Modal opened onClose={props.onClose} title={fbText(props.kind === 'move' ? 'moveTitle' : 'copyTitle', { n: props.paths.length })} data-testid="fb-transfer-dialog">
      <Stack>
        <Select label={fbText('targetStorage')} data={props.storages.filter((s) => s.can.write).map((s) => ({ value: s.key, label: s.name }))} value={toStorage} onChange={(v) => v && setToStorage(v)} allowDeselect={false} />
        <TextInput label={fbText('targetFolder')} value={to} onChange={(e) => setTo(e.currentTarget.value)} data-testid="fb-transfer-to" />
        <Checkbox label={fbText('overwrite')} checked={overwrite} onChange={(e) => setOverwrite(e.currentTarget.checked)} />
      </Stack>
      <Actions onClose={props.onClose} submit={fbText(props.kind)} busy={run.isPending} onSubmit={() => run.mutate()} testId="fb-transfer-save" />
    </Modal>
  );
}

export function DeleteDialog(props: { paths: string[]; onClose: () => void; onConfirm: () => Promise<unknown> }) {
  const run = useMutation({ mutationFn: props.onConfirm, onSuccess: props.onClose });
  const names = props.paths.map((p) => p.slice(p.lastIndexOf('/') + 1));
  return (
    <Modal opened onClose={props.onClose} title={fbText('deleteTitle')} data-testid="fb-delete-dialog">
      <Text>{fbText('deleteConfirm', { n: props.paths.length })}</Text>
      <Text fz="sm" c="dimmed" mt="xs" style={{ wordBreak: 'break-all' }}>
        {fbText('deleteList', { names: names.slice(0, 10).join(', ') + (names.length > 10 ? ' …' : '') })}
      </Text>
      <Actions onClose={props.onClose} submit={fbText('delete')} color="red" busy={run.isPending} onSubmit={() => run.mutate()} testId="fb-delete-confirm" />
    </Modal>
  );
}

const TEXT = /\.(txt|md|markdown|log|json|ya?ml|toml|ini|conf|cfg|csv|tsv|xml|html?|css|js|mjs|ts|tsx|jsx|py|sh|bash|go|rs|c|h|cpp|java|kt|sql|env|properties|service|nginx|srt|vtt)$/i;
const IMAGE = /\.(png|jpe?g|gif|webp|avif|bmp|ico|svg)$/i;
const AUDIO = /\.(mp3|m4a|ogg|opus|flac|wav|aac)$/i;
const VIDEO = /\.(mp4|m4v|webm|mkv|mov)$/i;

export function PreviewDialog(props: { storage: string; row: Row; canWrite: boolean; onClose: () => void; onSaved: () => void }) {
  const { row } = props;
  const kind = TEXT.test(row.name) || (row.size === 0 && !IMAGE.test(row.name) && !AUDIO.test(row.name) && !VIDEO.test(row.name)) ? 'text' : IMAGE.test(row.name) ? 'image' : AUDIO.test(row.name) ? 'audio' : VIDEO.test(row.name) ? 'video' : 'none';
  const media = kind === 'image' || kind === 'audio' || kind === 'video';
  const link = useQuery({ queryKey: ['filebrowser', 'media', props.storage, row.path, row.mtime], queryFn: () => fb.link(props.storage, [row.path], { inline: true }), enabled: media, staleTime: Infinity, retry: false });
  const text = useQuery({ queryKey: ['filebrowser', 'text', props.storage, row.path, row.mtime], queryFn: () => fb.readText(props.storage, row.path), enabled: kind === 'text' && row.size <= FB_TEXT_MAX, retry: false });
  const [draft, setDraft] = useState<string | null>(null);
  useEffect(() => setDraft(null), [row.path]);
  const [savedText, setSavedText] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (content: string) => fb.saveText(props.storage, row.path, content),
    onSuccess: (_r, content) => {
      setSavedText(content);
      props.onSaved();
    },
  });
  const value = draft ?? text.data?.content ?? '';
  return (
    <Modal opened onClose={props.onClose} title={row.name} size={kind === 'text' || kind === 'video' ? 'xl' : 'lg'} data-testid="fb-preview">
      {kind === 'text' && row.size > FB_TEXT_MAX && <Alert color="yellow">{fbText('previewTooLarge')}</Alert>}
      {kind === 'text' && row.size <= FB_TEXT_MAX && (
        <Stack gap="xs">
          {text.isLoading && <Loader size="sm" />}
          {text.isSuccess && (
            <>
              <Textarea
                value={value}
                onChange={(e) => setDraft(e.currentTarget.value)}
                readOnly={!props.canWrite}
                autosize
                minRows={12}
                maxRows={28}
                styles={{ input: { fontFamily: 'monospace', fontSize: 13 } }}
                data-testid="fb-editor"
              />
              {props.canWrite && (
                <Group justify="space-between">
                  <Text fz="xs" c="dimmed" data-testid="fb-editor-state">
                    {draft !== null && draft === savedText ? fbText('editorSaved') : draft !== null && draft !== text.data.content ? fbText('editorUnsaved') : ''}
                  </Text>
                  <Button size="xs" loading={save.isPending} disabled={draft === null} onClick={() => save.mutate(draft ?? '')} data-testid="fb-editor-save">
                    {fbText('editorSave')}
                  </Button>
                </Group>
              )}
            </>
          )}
        </Stack>
      )}
      {kind === 'image' && link.data && <Image src={link.data} alt={row.name} fit="contain" mah="70vh" data-testid="fb-preview-image" />}
      {kind === 'audio' && link.data && <audio src={link.data} controls style={{ width: '100%' }} data-testid="fb-preview-audio" />}
      {kind === 'video' && link.data && <video src={link.data} controls style={{ width: '100%', maxHeight: '70vh' }} data-testid="fb-preview-video" />}
      {kind === 'none' && <Text c="dimmed">{fbText('previewNone')}</Text>}
    </Modal>
  );
}

export function DetailsDialog(props: { storage: string; row: Row; onClose: () => void }) {
  const st = useQuery({ queryKey: ['filebrowser', 'stat', props.storage, props.row.path], queryFn: () => fb.stat(props.storage, props.row.path), retry: false });
  const e = st.data?.entry ?? props.row;
  const rows: Array<[string, string]> = [
    [fbText('detailPath'), st.data?.path ?? props.row.path],
    [fbText('detailType'), fbText(`kind_${e.kind}`) + (e.link ? ' (link)' : '')],
    [fbText('colSize'), e.kind === 'dir' ? '' : `${human(e.size)} (${e.size.toLocaleString()} B)`],
    [fbText('colTime'), new Date(e.mtime).toLocaleString()],
    [fbText('colMode'), e.mode],
  ];
  if (st.data?.items !== null && st.data?.items !== undefined) rows.push([fbText('detailItems'), String(st.data.items)]);
  if (st.data?.mime) rows.push([fbText('detailMime'), st.data.mime]);
  return (
    <Modal opened onClose={props.onClose} title={fbText('detailsTitle')} data-testid="fb-details">
      <Table>
        <Table.Tbody>
          {rows.map(([k, v]) => (
            <Table.Tr key={k}>
              <Table.Td fw={600} w={140}>
                {k}
              </Table.Td>
              <Table.Td style={{ wordBreak: 'break-all' }}>{v}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Modal>
  );
}

const EXPIRY: Record<string, number | null> = { never: null, '1h': 3600_000, '1d': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 };

export function ShareDialog(props: { storage: string; row: Row; onClose: () => void }) {
  const qc = useQueryClient();
  const [name, setName] = useState(props.row.name);
  const [expiry, setExpiry] = useState('7d');
  const [password, setPassword] = useState('');
  const [url, setUrl] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: async () => {
      const ms = EXPIRY[expiry] ?? null;
      const { key } = await fb.createShare({ name: name.trim() || props.row.name, storage: props.storage, path: props.row.path, expires: ms === null ? null : Date.now() + ms, password });
      return key;
    },
    onSuccess: async (key) => {
      void qc.invalidateQueries({ queryKey: fbKeys.shares });
      const made = await fb.getShare(key);
      setUrl(new URL(made.rule.url, document.baseURI).toString());
    },
  });
  return (
    <Modal opened onClose={props.onClose} title={fbText('shareTitle', { name: props.row.name })} data-testid="fb-share-dialog">
      {url ? (
        <Stack>
          <TextInput label={fbText('shareLink')} value={url} readOnly data-testid="fb-share-url" />
          <Group justify="flex-end">
            <CopyButton value={url}>
              {({ copied, copy }) => (
                <Button variant="light" onClick={copy}>
                  {copied ? fbText('shareCopied') : fbText('shareCopy')}
                </Button>
              )}
            </CopyButton>
            <Button onClick={props.onClose} data-testid="fb-share-close">
              {fbText('close')}
            </Button>
          </Group>
        </Stack>
      ) : (
        <>
          <Stack>
            <TextInput label={fbText('shareName')} value={name} onChange={(e) => setName(e.currentTarget.value)} data-testid="fb-share-name" />
            <Select
              label={fbText('shareExpiry')}
              data={[
                { value: 'never', label: fbText('expiryNever') },
                { value: '1h', label: fbText('expiry1h') },
                { value: '1d', label: fbText('expiry1d') },
                { value: '7d', label: fbText('expiry7d') },
                { value: '30d', label: fbText('expiry30d') },
              ]}
              value={expiry}
              onChange={(v) => v && setExpiry(v)}
              allowDeselect={false}
              data-testid="fb-share-expiry"
            />
            <PasswordInput label={fbText('sharePassword')} description={fbText('sharePasswordHint')} value={password} onChange={(e) => setPassword(e.currentTarget.value)} data-testid="fb-share-password" />
          </Stack>
          <Actions onClose={props.onClose} submit={fbText('shareCreate')} busy={create.isPending} onSubmit={() => create.mutate()} testId="fb-share-create" />
        </>
      )}
    </Modal>
  );
}

export function SettingsDialog(props: { onClose: () => void }) {
  const qc = useQueryClient();
  const current = useQuery(settingsQuery());
  const users = useQuery(storageUsersQuery());
  const [form, setForm] = useState<{ identity: 'admin' | 'user'; account: string; searchMax: number; searchDepth: number; indexMax: number; thumbCacheMb: number } | null>(null);
  useEffect(() => {
    if (current.data && !form) setForm({ ...current.data.configure });
  }, [current.data, form]);
  const save = useMutation({
    mutationFn: () => fb.putSettings(form!),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['filebrowser'] });
      props.onClose();
    },
  });
  const accounts = (users.data?.configure.users ?? []).map((u) => u.account);
  return (
    <Modal opened onClose={props.onClose} title={fbText('settingsTitle')} data-testid="fb-settings">
      {form && (
        <Stack>
          <Radio.Group label={fbText('setIdentity')} value={form.identity} onChange={(v) => setForm({ ...form, identity: v as 'admin' | 'user' })}>
            <Stack gap={6} mt={6}>
              <Radio value="admin" label={fbText('setIdentityAdmin')} data-testid="fb-set-admin" />
              <Radio value="user" label={fbText('setIdentityUser')} data-testid="fb-set-user" />
            </Stack>
          </Radio.Group>
          {form.identity === 'user' && (
            <Select label={fbText('setAccount')} data={accounts} value={form.account || null} onChange={(v) => setForm({ ...form, account: v ?? '' })} data-testid="fb-set-account" />
          )}
          <NumberInput label={fbText('setSearchMax')} min={10} max={5000} value={form.searchMax} onChange={(v) => setForm({ ...form, searchMax: Number(v) || 500 })} />
          <NumberInput label={fbText('setSearchDepth')} min={1} max={64} value={form.searchDepth} onChange={(v) => setForm({ ...form, searchDepth: Number(v) || 16 })} />
          <NumberInput
            label={fbText('setIndexMax')}
            min={100}
            max={5_000_000}
            step={10_000}
            thousandSeparator=" "
            value={form.indexMax}
            onChange={(v) => setForm({ ...form, indexMax: Number(v) || 200_000 })}
            data-testid="fb-set-indexmax"
          />
          <NumberInput
            label={fbText('setThumbCacheMb')}
            min={1}
            max={65_536}
            value={form.thumbCacheMb}
            onChange={(v) => setForm({ ...form, thumbCacheMb: Number(v) || 64 })}
            data-testid="fb-set-thumbcache"
          />
        </Stack>
      )}
      <Actions onClose={props.onClose} submit={fbText('save')} busy={save.isPending} disabled={!form || (form.identity === 'user' && !form.account)} onSubmit={() => save.mutate()} testId="fb-settings-save" />
    </Modal>
  );
}
