/**
 * FileBrowser: the storages as folders — storage picker, breadcrumbs, a sortable table with
 * multi-select, image thumbnails, search by name (from the daemon's index; a result opens its
 * folder), uploads (files and folders, drag and drop, progress, resume, cancel),
 * downloads (a file, or a zip of a folder or a selection), rename, move, copy, delete, new folder,
 * new text file, previews (text with an editor, images, audio, video), details, share links; and
 * the list of share links with revoke. The daemon decides every permission.
 */
import {
  ActionIcon,
  Alert,
  Anchor,
  Badge,
  Breadcrumbs,
  Button,
  Checkbox,
  Group,
  Menu,
  Paper,
  Select,
  Stack,
  Table,
  Tabs,
  Text,
  TextInput,
  UnstyledButton,
} from '@mantine/core';
import type { FbEntry } from '@lucky/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState, useSyncExternalStore, type DragEvent } from 'react';
import { modulesQuery } from '../../api/queries';
import { PageTitle } from '../../shell/Shell';
import { DeleteDialog, DetailsDialog, NameDialog, PreviewDialog, SettingsDialog, ShareDialog, TransferDialog } from './dialogs';
import { fbText } from './i18n';
import { fb, fbKeys, human, joinPath, listQuery, parentOf, startDownload, storagesQuery } from './queries';
import { SharesTab } from './SharesTab';
import { UploadPanel } from './UploadPanel';
import { hasThumb, Thumb } from './thumbs';
import { droppedFiles, UploadQueue } from './uploads';

type Sort = 'name' | 'size' | 'mtime';
type Row = FbEntry & { path: string };

type Dialog =
  | { kind: 'mkdir' | 'newfile' }
  | { kind: 'rename'; row: Row }
  | { kind: 'move' | 'copy'; paths: string[] }
  | { kind: 'delete'; paths: string[] }
  | { kind: 'preview'; row: Row }
  | { kind: 'details'; row: Row }
  | { kind: 'share'; row: Row }
  | { kind: 'settings' }
  | null;

const fmtTime = (ms: number) => new Date(ms).toLocaleString();

export function FilebrowserPage() {
  const modules = useQuery(modulesQuery());
  const enabled = modules.data ? modules.data.Modules.includes('filebrowser') : true;
  const [tab, setTab] = useState<string | null>('files');
  const [dialog, setDialog] = useState<Dialog>(null);
  const storages = useQuery({ ...storagesQuery(), enabled });
  const identity = storages.data?.identity;
  return (
    <Stack data-testid="fb-page">
      <PageTitle
        right={
          <Group gap="xs">
            {identity && (
              <Badge variant="light" tt="none" data-testid="fb-identity">
                {identity.kind === 'admin' ? fbText('identityAdmin') : fbText('identityUser', { account: identity.account })}
              </Badge>
            )}
            <Button variant="default" onClick={() => setDialog({ kind: 'settings' })} disabled={!enabled} data-testid="fb-settings-open">
              {fbText('settings')}
            </Button>
          </Group>
        }
      >
        {fbText('title')}
      </PageTitle>
      <Tabs value={tab} onChange={setTab} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="files" data-testid="fb-tab-files">
            {fbText('tabFiles')}
          </Tabs.Tab>
          <Tabs.Tab value="shares" data-testid="fb-tab-shares">
            {fbText('tabShares')}
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="files" pt="md">
          {enabled && <Files />}
        </Tabs.Panel>
        <Tabs.Panel value="shares" pt="md">
          {enabled && <SharesTab />}
        </Tabs.Panel>
      </Tabs>
      {dialog?.kind === 'settings' && <SettingsDialog onClose={() => setDialog(null)} />}
    </Stack>
  );
}

function Files() {
  const qc = useQueryClient();
  const storages = useQuery(storagesQuery());
  const list = storages.data?.list ?? [];
  const [storage, setStorage] = useState('');
  const [path, setPath] = useState('/');
  const [sort, setSort] = useState<Sort>('name');
  const [order, setOrder] = useState<'asc' | 'desc'>('asc');
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [dialog, setDialog] = useState<Dialog>(null);
  const [search, setSearch] = useState('');
  const [found, setFound] = useState<{ q: string; rows: Row[]; truncated: boolean; indexing: boolean; partial: boolean } | null>(null);
  /** The name a search result led to: marked in its folder. */
  const [marked, setMarked] = useState('');
  const [dragging, setDragging] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const queue = useMemo(() => new UploadQueue(), []);
  const uploads = useSyncExternalStore(queue.subscribe, queue.snapshot);

  // The first storage until one is chosen; a storage that went away is left.
  useEffect(() => {
    if (list.length > 0 && !list.some((s) => s.key === storage)) {
      setStorage(list[0]!.key);
      setPath('/');
    }
  }, [list, storage]);
  const current = list.find((s) => s.key === storage);
  const folder = useQuery(listQuery(storage, path, sort, order));
  const refresh = () => void qc.invalidateQueries({ queryKey: fbKeys.all });
  useEffect(() => {
    queue.onDone = refresh;
  });
  useEffect(() => {
    setSelected(new Set());
    setFound(null);
  }, [storage, path]);
  useEffect(() => {
    if (found) setMarked('');
  }, [found]);

  const rows: Row[] = found ? found.rows : (folder.data?.entries ?? []).map((e) => ({ ...e, path: joinPath(folder.data!.path, e.name) }));
  const can = current?.can ?? { read: true, write: false, delete: false };
  const selectedPaths = [...selected];

  const open = (r: Row) => {
    if (r.kind === 'dir') {
      setPath(r.path);
      return;
    }
    setDialog({ kind: 'preview', row: r });
  };
  const download = async (paths: string[], name?: string) => startDownload(await fb.link(storage, paths, { name: name ?? '' }));
  const sortBy = (s: Sort) => {
    if (s === sort) setOrder(order === 'asc' ? 'desc' : 'asc');
    else {
      setSort(s);
      setOrder('asc');
    }
  };
  const runSearch = async () => {
    const q = search.trim();
    if (!q) return setFound(null);
    const r = await fb.search(storage, path, q);
    setFound({ q, rows: r.results, truncated: r.truncated, indexing: r.indexing, partial: r.partial });
  };
  /** A search result's folder, the result marked in it. */
  const reveal = (r: Row) => {
    setFound(null);
    setMarked(r.name);
    setPath(parentOf(r.path));
  };
  const addFiles = (files: Array<{ file: File; rel: string }>) => {
    if (files.length > 0) queue.add(storage, path, files);
  };
  const onDrop = async (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    if (!can.write) return;
    addFiles(await droppedFiles(e.dataTransfer));
  };

  if (storages.isSuccess && list.length === 0) {
    return (
      <Alert color="yellow" data-testid="fb-no-storages">
        {fbText('noStorages')}
      </Alert>
    );
  }

  const crumbs = path.split('/').filter(Boolean);
  const arrow = (s: Sort) => (sort === s ? (order === 'asc' ? ' ▲' : ' ▼') : '');
  const allChecked = rows.length > 0 && rows.every((r) => selected.has(r.path));

  return (
    <Stack gap="sm" onDragOver={(e) => { e.preventDefault(); if (can.write) setDragging(true); }} onDragLeave={() => setDragging(false)} onDrop={(e) => void onDrop(e)} data-testid="fb-files">
      <Group justify="space-between" wrap="wrap">
        <Group gap="xs">
          <Select
            w={200}
            aria-label={fbText('storage')}
            data={list.map((s) => ({ value: s.key, label: s.name }))}
            value={storage || null}
            onChange={(v) => {
              if (v) {
                setStorage(v);
                setPath('/');
              }
            }}
            allowDeselect={false}
            data-testid="fb-storage"
          />
          <TextInput
            w={260}
            placeholder={fbText('search')}
            value={search}
            onChange={(e) => setSearch(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') void runSearch();
            }}
            data-testid="fb-search"
          />
        </Group>
        <Group gap="xs">
          <Button variant="default" size="xs" onClick={refresh} data-testid="fb-refresh">
            {fbText('refresh')}
          </Button>
          <Button variant="default" size="xs" disabled={!can.write} onClick={() => setDialog({ kind: 'mkdir' })} data-testid="fb-mkdir">
            {fbText('newFolder')}
          </Button>
          <Button variant="default" size="xs" disabled={!can.write} onClick={() => setDialog({ kind: 'newfile' })} data-testid="fb-newfile">
            {fbText('newFile')}
          </Button>
          <Button size="xs" disabled={!can.write} onClick={() => fileInput.current?.click()} data-testid="fb-upload">
            {fbText('uploadFiles')}
          </Button>
          <Button size="xs" variant="light" disabled={!can.write} onClick={() => folderInput.current?.click()} data-testid="fb-upload-folder">
            {fbText('uploadFolder')}
          </Button>
          <input
            ref={fileInput}
            type="file"
            multiple
            hidden
            data-testid="fb-upload-input"
            onChange={(e) => {
              addFiles([...(e.currentTarget.files ?? [])].map((file) => ({ file, rel: file.name })));
              e.currentTarget.value = '';
            }}
          />
          <input
            ref={folderInput}
            type="file"
            hidden
            {...({ webkitdirectory: '', directory: '' } as Record<string, string>)}
            data-testid="fb-upload-folder-input"
            onChange={(e) => {
              addFiles([...(e.currentTarget.files ?? [])].map((file) => ({ file, rel: file.webkitRelativePath || file.name })));
              e.currentTarget.value = '';
            }}
          />
        </Group>
      </Group>

      <Breadcrumbs separator="/" data-testid="fb-crumbs">
        <Anchor component="button" onClick={() => setPath('/')} data-testid="fb-crumb-root">
          {current?.name ?? fbText('root')}
        </Anchor>
        {crumbs.map((c, i) => (
          <Anchor key={i} component="button" onClick={() => setPath(`/${crumbs.slice(0, i + 1).join('/')}`)} data-testid="fb-crumb">
            {c}
          </Anchor>
        ))}
      </Breadcrumbs>

      {found && (
        <Group gap="xs">
          <Text fz="sm" data-testid="fb-search-summary">
            {fbText('searchResults', { q: found.q, n: found.rows.length })} {found.truncated ? fbText('searchTruncated') : ''}
          </Text>
          <Button size="compact-xs" variant="subtle" onClick={() => setFound(null)} data-testid="fb-search-clear">
            {fbText('clearSearch')}
          </Button>
        </Group>
      )}
      {found?.indexing && (
        <Alert color="blue" p="xs" data-testid="fb-search-indexing">
          {fbText('searchIndexing')}
        </Alert>
      )}
      {found?.partial && (
        <Alert color="yellow" p="xs" data-testid="fb-search-partial">
          {fbText('searchPartial')}
        </Alert>
      )}

      {selected.size > 0 && (
        <Paper withBorder p="xs" data-testid="fb-selection">
          <Group gap="xs">
            <Text fz="sm">{fbText('selected', { n: selected.size })}</Text>
            <Button size="compact-sm" variant="light" onClick={() => void download(selectedPaths, selectedPaths.length === 1 ? undefined : current?.name)} data-testid="fb-sel-download">
              {fbText('downloadZip')}
            </Button>
            <Button size="compact-sm" variant="light" onClick={() => setDialog({ kind: 'copy', paths: selectedPaths })} data-testid="fb-sel-copy">
              {fbText('copy')}
            </Button>
            <Button size="compact-sm" variant="light" disabled={!can.delete} onClick={() => setDialog({ kind: 'move', paths: selectedPaths })} data-testid="fb-sel-move">
              {fbText('move')}
            </Button>
            <Button size="compact-sm" variant="light" color="red" disabled={!can.delete} onClick={() => setDialog({ kind: 'delete', paths: selectedPaths })} data-testid="fb-sel-delete">
              {fbText('delete')}
            </Button>
          </Group>
        </Paper>
      )}

      <Paper withBorder style={{ outline: dragging ? '2px dashed var(--mantine-color-blue-5)' : undefined }} data-testid="fb-drop">
        <Table highlightOnHover verticalSpacing={6} data-testid="fb-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={36}>
                <Checkbox
                  aria-label="all"
                  checked={allChecked}
                  indeterminate={selected.size > 0 && !allChecked}
                  onChange={() => setSelected(allChecked ? new Set() : new Set(rows.map((r) => r.path)))}
                  data-testid="fb-check-all"
                />
              </Table.Th>
              <Table.Th>
                <UnstyledButton fw={600} fz="sm" onClick={() => sortBy('name')} data-testid="fb-sort-name">
                  {fbText('colName')}
                  {arrow('name')}
                </UnstyledButton>
              </Table.Th>
              {found && <Table.Th>{fbText('colPath')}</Table.Th>}
              <Table.Th w={110}>
                <UnstyledButton fw={600} fz="sm" onClick={() => sortBy('size')} data-testid="fb-sort-size">
                  {fbText('colSize')}
                  {arrow('size')}
                </UnstyledButton>
              </Table.Th>
              <Table.Th w={190}>
                <UnstyledButton fw={600} fz="sm" onClick={() => sortBy('mtime')} data-testid="fb-sort-mtime">
                  {fbText('colTime')}
                  {arrow('mtime')}
                </UnstyledButton>
              </Table.Th>
              <Table.Th w={110}>{fbText('colMode')}</Table.Th>
              <Table.Th w={60} />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {!found && path !== '/' && (
              <Table.Tr>
                <Table.Td />
                <Table.Td colSpan={5}>
                  <Anchor component="button" onClick={() => setPath(parentOf(path))} data-testid="fb-up">
                    ..
                  </Anchor>
                </Table.Td>
              </Table.Tr>
            )}
            {rows.map((r) => (
              <Table.Tr
                key={r.path}
                data-testid="fb-row"
                data-name={r.name}
                data-kind={r.kind}
                data-marked={!found && r.name === marked ? 'true' : undefined}
                bg={!found && r.name === marked ? 'var(--mantine-color-yellow-light)' : undefined}
              >
                <Table.Td>
                  <Checkbox
                    aria-label={r.name}
                    checked={selected.has(r.path)}
                    onChange={() => {
                      const next = new Set(selected);
                      if (next.has(r.path)) next.delete(r.path);
                      else next.add(r.path);
                      setSelected(next);
                    }}
                    data-testid="fb-check"
                  />
                </Table.Td>
                <Table.Td style={{ wordBreak: 'break-all' }}>
                  {hasThumb(r) && <Thumb storage={storage} entry={r} />}
                  <Anchor component="button" fz="sm" onClick={() => open(r)} data-testid="fb-open">
                    {r.link ? '↪ ' : ''}
                    {r.kind === 'dir' ? <b>{r.name}/</b> : r.name}
                  </Anchor>
                </Table.Td>
                {found && (
                  <Table.Td fz="xs">
                    <Anchor component="button" fz="xs" title={fbText('openFolder')} onClick={() => reveal(r)} data-testid="fb-result-folder">
                      {parentOf(r.path)}
                    </Anchor>
                  </Table.Td>
                )}
                <Table.Td fz="sm" data-testid="fb-size">
                  {r.kind === 'dir' ? '' : human(r.size)}
                </Table.Td>
                <Table.Td fz="sm">{fmtTime(r.mtime)}</Table.Td>
                <Table.Td fz="xs" ff="monospace">
                  {r.mode}
                </Table.Td>
                <Table.Td>
                  <Menu position="bottom-end" withinPortal>
                    <Menu.Target>
                      <ActionIcon variant="subtle" aria-label={fbText('actions')} data-testid="fb-row-menu">
                        ⋯
                      </ActionIcon>
                    </Menu.Target>
                    <Menu.Dropdown>
                      {r.kind === 'file' && <Menu.Item onClick={() => setDialog({ kind: 'preview', row: r })} data-testid="fb-act-open">{fbText('open')}</Menu.Item>}
                      <Menu.Item onClick={() => void download([r.path])} data-testid="fb-act-download">
                        {r.kind === 'dir' ? fbText('downloadZip') : fbText('download')}
                      </Menu.Item>
                      <Menu.Item onClick={() => setDialog({ kind: 'share', row: r })} data-testid="fb-act-share">{fbText('share')}</Menu.Item>
                      <Menu.Item onClick={() => setDialog({ kind: 'details', row: r })} data-testid="fb-act-details">{fbText('details')}</Menu.Item>
                      <Menu.Divider />
                      <Menu.Item disabled={!can.write} onClick={() => setDialog({ kind: 'rename', row: r })} data-testid="fb-act-rename">{fbText('rename')}</Menu.Item>
                      <Menu.Item onClick={() => setDialog({ kind: 'copy', paths: [r.path] })} data-testid="fb-act-copy">{fbText('copy')}</Menu.Item>
                      <Menu.Item disabled={!can.delete} onClick={() => setDialog({ kind: 'move', paths: [r.path] })} data-testid="fb-act-move">{fbText('move')}</Menu.Item>
                      <Menu.Item color="red" disabled={!can.delete} onClick={() => setDialog({ kind: 'delete', paths: [r.path] })} data-testid="fb-act-delete">{fbText('delete')}</Menu.Item>
                    </Menu.Dropdown>
                  </Menu>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        {rows.length === 0 && folder.isSuccess && (
          <Text c="dimmed" ta="center" p="md" fz="sm" data-testid="fb-empty">
            {can.write ? fbText('dropHere') : fbText('empty')}
          </Text>
        )}
      </Paper>

      <UploadPanel queue={queue} items={uploads} />

      {(dialog?.kind === 'mkdir' || dialog?.kind === 'newfile') && (
        <NameDialog
          title={dialog.kind === 'mkdir' ? fbText('newFolder') : fbText('newFile')}
          initial=""
          testId={`fb-${dialog.kind}-dialog`}
          onClose={() => setDialog(null)}
          onSubmit={async (name) => {
            await (dialog.kind === 'mkdir' ? fb.mkdir(storage, path, name) : fb.newFile(storage, path, name));
            refresh();
          }}
        />
      )}
      {dialog?.kind === 'rename' && (
        <NameDialog
          title={fbText('rename')}
          initial={dialog.row.name}
          testId="fb-rename-dialog"
          onClose={() => setDialog(null)}
          onSubmit={async (name) => {
            await fb.rename(storage, dialog.row.path, name);
            refresh();
          }}
        />
      )}
      {(dialog?.kind === 'move' || dialog?.kind === 'copy') && (
        <TransferDialog
          kind={dialog.kind}
          paths={dialog.paths}
          storages={list}
          storage={storage}
          initialFolder={path}
          onClose={() => setDialog(null)}
          onDone={() => {
            setSelected(new Set());
            refresh();
          }}
        />
      )}
      {dialog?.kind === 'delete' && (
        <DeleteDialog
          paths={dialog.paths}
          onClose={() => setDialog(null)}
          onConfirm={async () => {
            await fb.remove(storage, dialog.paths);
            setSelected(new Set());
            refresh();
          }}
        />
      )}
      {dialog?.kind === 'preview' && <PreviewDialog storage={storage} row={dialog.row} canWrite={can.write} onClose={() => setDialog(null)} onSaved={refresh} />}
      {dialog?.kind === 'details' && <DetailsDialog storage={storage} row={dialog.row} onClose={() => setDialog(null)} />}
      {dialog?.kind === 'share' && <ShareDialog storage={storage} row={dialog.row} onClose={() => setDialog(null)} />}
    </Stack>
  );
}
