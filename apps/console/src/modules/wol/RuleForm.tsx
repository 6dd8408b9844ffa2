/**
 * Add/edit a device: its MACs, where the packet goes, SecureOn, how many packets, the online
 * check, how it is shut down, and (once saved) the shortcut that schedules its wake or shutdown.
 */
import { Alert, Anchor, Button, Chip, Divider, Group, Select, Stack, Switch, Text, Textarea, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { cronRoutes, type wolRoutes } from '@lucky/contracts';
import { useState } from 'react';
import { call } from '../../api';
import { SegmentedField } from '../../kit/fields/SegmentedField';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import { AddressPortFields } from '../../kit/fields/AddressPortFields';
import { LinesInput } from '../../kit/fields/LinesInput';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import { useRuleForm, type RuleFormProps } from '../../kit/rule-dialog/useRuleForm';
import type { RuleViewOf } from '../../kit/rule-list/ruleModule';
import { checkDevice, emptyForm, formToDevice, scheduledTask, scheduleExpr, toForm, type DeviceForm, type ScheduledOp } from './form';
import { wolText } from './i18n';
import { wolInterfacesQuery } from './queries';
import { wolRules } from './ruleModule';

export function RuleForm(props: RuleFormProps<typeof wolRoutes>) {
  const f = useRuleForm(wolRules, props, { empty: emptyForm, toForm, toInput: formToDevice, check: checkDevice });
  // The daemon's one line names the field; the fields themselves stay as typed.
  const b = bindFields(f.form, f.set);
  const ifs = useQuery(wolInterfacesQuery()).data?.interfaces ?? [];
  return (
    <FormFrame {...f.frame}>
      <TextInput label={wolText('name')} {...b.text('name')} data-testid="wol-name" />
      <LinesInput label={wolText('macs')} description={wolText('macsHint')} {...b.text('macs')} data-testid="wol-macs" />
      <AddressPortFields
        address={{ label: wolText('broadcast'), description: wolText('broadcastHint'), ...b.text('broadcast'), 'data-testid': 'wol-broadcast' }}
        port={{ label: wolText('port'), ...b.number('port'), 'data-testid': 'wol-port' }}
      />
      <Group grow align="flex-start">
        <TextInput label={wolText('secureOn')} description={wolText('secureOnHint')} {...b.text('secureOn')} data-testid="wol-secureon" />
        <WholeNumberInput label={wolText('repeat')} min={1} max={10} {...b.number('repeat')} data-testid="wol-repeat" />
      </Group>
      <Group grow align="flex-start">
        <Select
          label={wolText('interface')}
          description={wolText('interfaceHint')}
          value={f.form.interface || null}
          clearable
          data={ifs.map((i) => ({ value: i.name, label: `${i.name} (${i.address} → ${i.broadcast})` }))}
          onChange={(name) => f.set({ interface: name ?? '', ...(name ? { broadcast: ifs.find((i) => i.name === name)?.broadcast ?? f.form.broadcast } : {}) })}
          data-testid="wol-interface"
        />
        <LinesInput label={wolText('targets')} description={wolText('targetsHint')} {...b.text('targets')} data-testid="wol-targets" />
      </Group>
      <Group grow align="flex-start">
        <TextInput label={wolText('checkHost')} description={wolText('checkHostHint')} {...b.text('checkHost')} data-testid="wol-checkhost" />
        <WholeNumberInput label={wolText('checkPort')} description={wolText('checkPortHint')} min={0} max={65535} {...b.number('checkPort')} data-testid="wol-checkport" />
      </Group>
      <ShutdownFields form={f.form} set={f.set} />
      <TextInput label={wolText('note')} {...b.text('note')} />
      <Switch label={wolText('enable')} {...b.check('enable')} />
      <ScheduleShortcut device={props.editing.key && props.editing.saved ? { ...props.editing.saved, key: props.editing.key } : null} />
    </FormFrame>
  );
}

function ShutdownFields({ form, set }: { form: DeviceForm; set: (patch: Partial<DeviceForm>) => void }) {
  return (
    <>
      <Divider label={wolText('shutdown')} labelPosition="left" />
      <SegmentedField
        label={wolText('shutdownKind')}
        value={form.shutdownKind}
        onChange={(k) => set({ shutdownKind: k as DeviceForm['shutdownKind'] })}
        data={(['none', 'command', 'url'] as const).map((k) => ({ value: k, label: wolText(`shutdownKind.${k}`) }))}
        data-testid="wol-shutdown-kind"
      />
      {form.shutdownKind === 'command' && (
        <TextInput
          label={wolText('shutdownCommand')}
          description={wolText('shutdownCommandHint')}
          value={form.shutdownCommand}
          onChange={(e) => set({ shutdownCommand: e.currentTarget.value })}
          ff="monospace"
          data-testid="wol-shutdown-command"
        />
      )}
      {form.shutdownKind === 'url' && (
        <>
          <Group align="flex-start" wrap="nowrap">
            <Select label={wolText('shutdownMethod')} value={form.shutdownMethod} onChange={(m) => m && set({ shutdownMethod: m as DeviceForm['shutdownMethod'] })} data={['GET', 'POST', 'PUT', 'PATCH']} allowDeselect={false} w={120} />
            <TextInput style={{ flex: 1 }} label={wolText('shutdownUrl')} description={wolText('shutdownUrlHint')} value={form.shutdownUrl} onChange={(e) => set({ shutdownUrl: e.currentTarget.value })} data-testid="wol-shutdown-url" />
          </Group>
          {form.shutdownMethod !== 'GET' && <Textarea label={wolText('shutdownBody')} value={form.shutdownBody} onChange={(e) => set({ shutdownBody: e.currentTarget.value })} autosize minRows={1} ff="monospace" />}
        </>
      )}
      {form.shutdownKind !== 'none' && (
        <WholeNumberInput label={wolText('shutdownTimeout')} min={1} max={600} value={form.shutdownTimeout} onChange={(x) => set({ shutdownTimeout: x })} w={200} data-testid="wol-shutdown-timeout" />
      )}
    </>
  );
}

type Device = RuleViewOf<typeof wolRoutes>;
const DAYS = [1, 2, 3, 4, 5, 6, 0] as const;

/**
 * "Schedule wake / shutdown": a scheduled task with one action on this device, created through the
 * cron module's own API (the daemon's modules stay apart), in the browser's time zone.
 */
function ScheduleShortcut({ device }: { device: Device | null }) {
  const queryClient = useQueryClient();
  const [op, setOp] = useState<ScheduledOp>('wake');
  const [time, setTime] = useState('07:30');
  const [days, setDays] = useState<string[]>(['1', '2', '3', '4', '5']);
  const [created, setCreated] = useState<{ name: string } | null>(null);
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  const create = useMutation({
    mutationFn: async (body: NonNullable<ReturnType<typeof scheduledTask>>) => {
      await call(cronRoutes.create, { body } as never);
      return { name: body.name };
    },
    onSuccess: async (r) => {
      setCreated(r);
      await queryClient.invalidateQueries({ queryKey: ['cron'] });
    },
  });
  if (!device) {
    return (
      <>
        <Divider label={wolText('schedule')} labelPosition="left" />
        <Text size="sm" c="dimmed" data-testid="wol-schedule-savefirst">
          {wolText('scheduleSaveFirst')}
        </Text>
      </>
    );
  }
  const canShutdown = device.shutdown.kind !== 'none';
  const picked = days.map(Number);
  const valid = scheduleExpr(time, picked) !== null && (op === 'wake' || canShutdown);
  const submit = () => {
    const dayText = picked.length === 7 ? wolText('scheduleEveryDay') : wolText('scheduleDaysList', { days: DAYS.filter((d) => picked.includes(d)).map((d) => wolText(`day${d}`)).join(wolText('daySeparator')) });
    const name = wolText('scheduleTaskName', { op: wolText(`scheduleOp.${op}`), name: device.name, time, days: dayText }).slice(0, 64);
    const task = scheduledTask(device, { op, time, days: picked }, name, zone);
    if (task) create.mutate(task);
  };
  return (
    <Stack gap="xs" data-testid="wol-schedule">
      <Divider label={wolText('schedule')} labelPosition="left" />
      <Text size="sm" c="dimmed">
        {wolText('scheduleHint', { zone })}
      </Text>
      <Group align="flex-end">
        <SegmentedField
          label={wolText('scheduleOp')}
          value={op}
          onChange={(x) => setOp(x as ScheduledOp)}
          data={[
            { value: 'wake', label: wolText('scheduleOp.wake') },
            { value: 'shutdown', label: wolText('scheduleOp.shutdown'), disabled: !canShutdown },
          ]}
          data-testid="wol-schedule-op"
        />
        <TextInput type="time" label={wolText('scheduleTime')} value={time} onChange={(e) => setTime(e.currentTarget.value)} w={140} data-testid="wol-schedule-time" />
      </Group>
      {!canShutdown && (
        <Text size="xs" c="dimmed">
          {wolText('scheduleNoShutdown')}
        </Text>
      )}
      <Chip.Group multiple value={days} onChange={setDays}>
        <Group gap={6} data-testid="wol-schedule-days">
          {DAYS.map((d) => (
            <Chip key={d} value={String(d)} size="xs" wrapperProps={{ 'data-testid': `wol-schedule-day-${d}` }}>
              {wolText(`day${d}`)}
            </Chip>
          ))}
        </Group>
      </Chip.Group>
      <Group>
        <Button variant="light" onClick={submit} disabled={!valid} loading={create.isPending} data-testid="wol-schedule-create">
          {wolText('scheduleCreate')}
        </Button>
        {!valid && (
          <Text size="sm" c="red">
            {wolText(op === 'shutdown' && !canShutdown ? 'scheduleNoShutdown' : 'scheduleBad')}
          </Text>
        )}
      </Group>
      {created && (
        <Alert color="green" variant="light" data-testid="wol-schedule-created">
          {wolText('scheduleCreated')}{' '}
          <Anchor href="#/cron" data-testid="wol-schedule-link">
            {created.name}
          </Anchor>
        </Alert>
      )}
    </Stack>
  );
}
