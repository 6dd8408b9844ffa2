/** Wake-on-LAN: devices (MACs, broadcast, port, SecureOn, repeat), wake now, switch, edit, delete. */
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Group,
  Modal,
  NumberInput,
  Skeleton,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Textarea,
  Tooltip,
} from '@mantine/core';
import { ZWolDevice, formatIssues, wolRoutes, type RuleStatus, type WolDevice } from '@lucky/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, call } from '../../api';
import { pushNotice } from '../../api/notices';
import { modulesQuery, wolListQuery, wolLogsQuery } from '../../api/queries';
import { lang, shellText, type MessageId } from '../../i18n';
import { lines } from '../../lib/helpers';

/**
 * A list item: the device input plus the rule-view fields. contracts' ruleView() loses the input's
 * own fields in its inferred type (they come out `unknown`), so the row is put together from the
 * two contract types instead.
 */
type WolRow = WolDevice & { key: string; status: RuleStatus; created: number; updated: number; lastWake: number | null };
import { ConfirmDelete, RuleTableCard } from '../../shell/RuleScreen';
import { useRuleActions } from '../../shell/useRuleActions';
import { PageTitle } from '../../shell/Shell';

interface FormState {
  name: string;
  enable: boolean;
  macs: string;
  broadcast: string;
  port: number | string;
  secureOn: string;
  repeat: number | string;
  note: string;
}

const emptyForm: FormState = { name: '', enable: true, macs: '', broadcast: '255.255.255.255', port: 9, secureOn: '', repeat: 3, note: '' };

const toForm = (d: WolRow): FormState => ({
  name: d.name,
  enable: d.enable,
  macs: d.macs.join('\n'),
  broadcast: d.broadcast,
  port: d.port,
  secureOn: d.secureOn,
  repeat: d.repeat,
  note: d.note,
});

/** The device as the API takes it; numbers stay NaN when not numbers so validation names the field. */
export function formToDevice(f: FormState): WolDevice {
  return {
    name: f.name.trim(),
    enable: f.enable,
    macs: lines(f.macs),
    broadcast: f.broadcast.trim(),
    port: typeof f.port === 'number' ? f.port : Number.NaN,
    secureOn: f.secureOn.trim(),
    repeat: typeof f.repeat === 'number' ? f.repeat : Number.NaN,
    note: f.note,
  };
}

const stateColor = { running: 'green', stopped: 'gray', error: 'red', disabled: 'gray' } as const;

export function WolPage() {
  const modules = useQuery(modulesQuery());
  const enabled = modules.data ? modules.data.Modules.includes('wol') : true;
  const list = useQuery({ ...wolListQuery(), enabled });
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<{ key: string | null; form: FormState } | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [logsOf, setLogsOf] = useState<WolRow | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['wol'] });

  const save = useMutation({
    mutationFn: async ({ key, device }: { key: string | null; device: WolDevice }) =>
      key ? call(wolRoutes.update, { params: { key }, body: device }, { silent: true }) : call(wolRoutes.create, { body: device }, { silent: true }),
    onSuccess: async () => {
      setEditing(null);
      pushNotice(shellText('wol.saved'), 'green');
      await refresh();
    },
    onError: (err) => setFormError(err instanceof ApiError ? err.message : String(err)),
  });

  const wake = useMutation({
    mutationFn: (key: string) => call(wolRoutes.wake, { params: { key } }),
    onSuccess: async (r) => {
      pushNotice(r.msg, 'green');
      await refresh();
    },
  });

  const { toggle, remove, deleting, setDeleting } = useRuleActions<WolRow>({
    routes: wolRoutes,
    listKey: ['wol'],
    deletedText: shellText('wol.deleted'),
  });


  const submit = () => {
    if (!editing) return;
    setFormError(null);
    const device = formToDevice(editing.form);
    const checked = ZWolDevice.safeParse(device);
    if (!checked.success) {
      setFormError(formatIssues(ZWolDevice, device, lang));
      return;
    }
    save.mutate({ key: editing.key, device: checked.data });
  };

  const setField = <K extends keyof FormState>(k: K, v: FormState[K]) => editing && setEditing({ ...editing, form: { ...editing.form, [k]: v } });
  const devices = (list.data?.list ?? []) as unknown as WolRow[];

  return (
    <Stack data-testid="wol-page">
      <PageTitle
        right={
          <Button
            onClick={() => {
              setFormError(null);
              setEditing({ key: null, form: emptyForm });
            }}
            disabled={!enabled}
            data-testid="wol-add"
          >
            {shellText('wol.add')}
          </Button>
        }
      >
        {shellText('wol.title')}
      </PageTitle>
      <RuleTableCard
        module="wol"
        enabled={enabled}
        loading={list.isPending}
        empty={devices.length === 0}
        emptyText={shellText('wol.empty')}
        testPrefix="wol"
        minWidth={760}
      >
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{shellText('wol.name')}</Table.Th>
            <Table.Th>{shellText('wol.macs')}</Table.Th>
            <Table.Th>{shellText('wol.broadcast')}</Table.Th>
            <Table.Th>{shellText('wol.status')}</Table.Th>
            <Table.Th>{shellText('wol.lastWake')}</Table.Th>
            <Table.Th>{shellText('wol.enable')}</Table.Th>
            <Table.Th>{shellText('wol.actions')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {devices.map((d) => (
            <Table.Tr key={d.key} data-testid="wol-row" data-key={d.key}>
              <Table.Td>
                <Text fw={500} fz="sm">
                  {d.name}
                </Text>
                {d.note && (
                  <Text fz="xs" c="dimmed">
                    {d.note}
                  </Text>
                )}
              </Table.Td>
              <Table.Td style={{ fontFamily: 'monospace', fontSize: 12 }}>
                {d.macs.map((m) => (
                  <div key={m}>{m}</div>
                ))}
              </Table.Td>
              <Table.Td fz="sm">
                {d.broadcast}:{d.port}
              </Table.Td>
              <Table.Td>
                <Tooltip label={d.status.message || shellText(`state.${d.status.state}` as MessageId)}>
                  <Badge color={stateColor[d.status.state]} variant="light">
                    {shellText(`state.${d.status.state}` as MessageId)}
                  </Badge>
                </Tooltip>
              </Table.Td>
              <Table.Td fz="sm" data-testid="wol-lastwake">
                {d.lastWake ? new Date(d.lastWake).toLocaleString() : shellText('wol.never')}
              </Table.Td>
              <Table.Td>
                <Switch
                  checked={d.enable}
                  onChange={(e) => toggle.mutate({ key: d.key, enable: e.currentTarget.checked })}
                  aria-label={shellText('wol.enable')}
                />
              </Table.Td>
              <Table.Td>
                <Group gap={6} wrap="nowrap">
                  <Button size="xs" onClick={() => wake.mutate(d.key)} loading={wake.isPending && wake.variables === d.key} data-testid="wol-wake">
                    {shellText('wol.wake')}
                  </Button>
                  <Button
                    size="xs"
                    variant="default"
                    onClick={() => {
                      setFormError(null);
                      setEditing({ key: d.key, form: toForm(d) });
                    }}
                  >
                    {shellText('wol.edit')}
                  </Button>
                  <Button size="xs" variant="subtle" onClick={() => setLogsOf(d)} data-testid="wol-logs">
                    {shellText('wol.logs')}
                  </Button>
                  <ActionIcon variant="subtle" color="red" onClick={() => setDeleting(d)} aria-label={shellText('wol.delete')} size="md">
                    ✕
                  </ActionIcon>
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </RuleTableCard>

      <Modal opened={editing !== null} onClose={() => setEditing(null)} title={editing?.key ? shellText('wol.edit') : shellText('wol.add')} size="lg" data-testid="wol-form">
        {editing && (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              submit();
            }}
            noValidate
          >
            <Stack gap="sm">
              <TextInput label={shellText('wol.name')} value={editing.form.name} onChange={(e) => setField('name', e.currentTarget.value)} data-testid="wol-name" />
              <Textarea
                label={shellText('wol.macs')}
                description={shellText('wol.macsHint')}
                autosize
                minRows={2}
                value={editing.form.macs}
                onChange={(e) => setField('macs', e.currentTarget.value)}
                data-testid="wol-macs"
              />
              <Group grow align="flex-start">
                <TextInput
                  label={shellText('wol.broadcast')}
                  description={shellText('wol.broadcastHint')}
                  value={editing.form.broadcast}
                  onChange={(e) => setField('broadcast', e.currentTarget.value)}
                  data-testid="wol-broadcast"
                />
                <NumberInput clampBehavior="none" label={shellText('wol.port')} min={1} max={65535} allowDecimal={false} value={editing.form.port} onChange={(v) => setField('port', v)} data-testid="wol-port" />
              </Group>
              <Group grow align="flex-start">
                <TextInput
                  label={shellText('wol.secureOn')}
                  description={shellText('wol.secureOnHint')}
                  value={editing.form.secureOn}
                  onChange={(e) => setField('secureOn', e.currentTarget.value)}
                  data-testid="wol-secureon"
                />
                <NumberInput clampBehavior="none" label={shellText('wol.repeat')} min={1} max={10} allowDecimal={false} value={editing.form.repeat} onChange={(v) => setField('repeat', v)} data-testid="wol-repeat" />
              </Group>
              <TextInput label={shellText('wol.note')} value={editing.form.note} onChange={(e) => setField('note', e.currentTarget.value)} />
              <Switch label={shellText('wol.enable')} checked={editing.form.enable} onChange={(e) => setField('enable', e.currentTarget.checked)} />
              {formError && (
                <Alert color="red" p="xs" data-testid="wol-form-error">
                  {formError}
                </Alert>
              )}
              <Group justify="flex-end">
                <Button variant="default" onClick={() => setEditing(null)}>
                  {shellText('wol.cancel')}
                </Button>
                <Button type="submit" loading={save.isPending} data-testid="wol-save">
                  {shellText('wol.save')}
                </Button>
              </Group>
            </Stack>
          </form>
        )}
      </Modal>

      <Modal opened={logsOf !== null} onClose={() => setLogsOf(null)} title={`${shellText('wol.logs')} · ${logsOf?.name ?? ''}`} size="lg">
        {logsOf && <DeviceLogs deviceKey={logsOf.key} />}
      </Modal>

      <ConfirmDelete
        opened={deleting !== null}
        title={shellText('logout.title')}
        question={shellText('wol.deleteConfirm', { name: deleting?.name ?? '' })}
        deleteText={shellText('wol.delete')}
        loading={remove.isPending}
        onCancel={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate(deleting.key)}
        testId="wol-delete-confirm"
      />
    </Stack>
  );
}

function DeviceLogs(props: { deviceKey: string }) {
  const logs = useQuery(wolLogsQuery(props.deviceKey));
  if (logs.isPending) return <Skeleton h={80} />;
  const lines = logs.data?.logs ?? [];
  return (
    <pre data-testid="wol-log-text" style={{ margin: 0, maxHeight: '50vh', overflow: 'auto', fontSize: 12, whiteSpace: 'pre-wrap' }}>
      {lines.length ? lines.map((l) => l.log).join('\n') : shellText('wol.noLogs')}
    </pre>
  );
}
