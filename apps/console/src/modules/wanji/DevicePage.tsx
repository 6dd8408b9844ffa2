/**
 * One device: its state as polled, its rules module by module (read from the device, with their
 * states), and what can be done there from here: switch a rule, sync a DDNS task, wake a WOL device,
 * restart, download a backup. Every action goes through this daemon, which holds the token.
 */
import { Alert, Anchor, Button, Group, Modal, SimpleGrid, Skeleton, Stack, Switch, Table, Tabs, Text } from '@mantine/core';
import { MODULE_CONTRACTS, wanjiRoutes, type ModuleKey, type WanjiAction } from '@lucky/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams } from '@tanstack/react-router';
import { useState } from 'react';
import { call } from '../../api';
import { pushNotice } from '../../api/notices';
import { RuleLogLines } from '../../kit/rule-log/RuleLogDialog';
import { RuleStatusCell } from '../../kit/rule-list/RuleCells';
import { ruleTestIds } from '../../kit/rule-list/ruleModule';
import { TableHead } from '../../kit/table/TableHead';
import { formatTime } from '../../kit/form/values';
import { PageTitle } from '../../shell/Shell';
import { TitledCard } from '../../shell/TitledCard';
import { downloadFile } from '../safe/transfer';
import { HealthCell, LoadCell, moduleLabel, OnlineCell, VersionCell, type Device } from './cells';
import { wanjiText } from './i18n';
import { remoteRulesQuery } from './queries';
import { wanjiRules } from './ruleModule';
import { Sparkline } from './Sparkline';

const remoteIds = ruleTestIds('wanji-remote');

export function DevicePage() {
  const { key } = useParams({ strict: false }) as { key?: string };
  const list = useQuery(wanjiRules.queries.list());
  const d = (list.data?.list as Device[] | undefined)?.find((x) => x.key === key);
  const back = (
    <Anchor href="#/wanjiadmin" fz="sm" data-testid="wanji-back">
      {wanjiText('back')}
    </Anchor>
  );
  if (list.isPending) return <Skeleton h={240} />;
  if (!d || !key)
    return (
      <Stack>
        {back}
        <Alert color="orange" data-testid="wanji-device-missing">
          {wanjiText('deviceMissing')}
        </Alert>
      </Stack>
    );
  return (
    <Stack data-testid="wanji-device" data-key={d.key} data-online={d.state.online}>
      {back}
      <PageTitle right={<DeviceActions device={d} />}>{d.name}</PageTitle>
      <TitledCard title={wanjiText('summary')}>
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }} spacing="lg">
          <Fact label={wanjiText('colOnline')}>
            <OnlineCell d={d} />
          </Fact>
          <Fact label={wanjiText('colVersion')}>
            <VersionCell d={d} />
          </Fact>
          <Fact label={wanjiText('colLoad')}>
            <LoadCell d={d} />
          </Fact>
          <Fact label={wanjiText('colHealth')}>
            <HealthCell d={d} />
          </Fact>
          <Fact label={wanjiText('field.url')}>
            <Text fz="sm" ff="monospace" style={{ wordBreak: 'break-all' }}>
              {d.url}
            </Text>
          </Fact>
          <Fact label={wanjiText('hostname')}>
            <Text fz="sm">{d.state.hostname || '-'}</Text>
          </Fact>
          <Fact label={wanjiText('latency')}>
            <Group gap={6}>
              <Text fz="sm">{d.state.latency === null ? '-' : `${d.state.latency} ms`}</Text>
              <Sparkline values={d.state.history.latency} color="var(--mantine-color-teal-6)" />
            </Group>
          </Fact>
          <Fact label={wanjiText('lastPoll')}>
            <Text fz="sm">{d.state.lastPoll === null ? '-' : formatTime(d.state.lastPoll)}</Text>
          </Fact>
        </SimpleGrid>
      </TitledCard>
      <TitledCard title={wanjiText('rules')}>
        <DeviceRules device={d} />
      </TitledCard>
      <TitledCard title={wanjiText('logTitle')}>
        <RuleLogLines rules={wanjiRules} ruleKey={d.key} maxHeight="320px" />
      </TitledCard>
    </Stack>
  );
}

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <Stack gap={4}>
      <Text fz="xs" c="dimmed" fw={500}>
        {label}
      </Text>
      {children}
    </Stack>
  );
}

/** An action on the device: its answer as a notice, then the device's rules and the list read again. */
function useDeviceAction(key: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: WanjiAction) => call(wanjiRoutes.action, { params: { key }, body }),
    onSuccess: async (r) => {
      pushNotice(r.msg, 'green');
      await queryClient.invalidateQueries({ queryKey: ['wanji'] });
    },
  });
}

function DeviceActions({ device }: { device: Device }) {
  const act = useDeviceAction(device.key);
  const [asking, setAsking] = useState(false);
  const backup = useMutation({
    mutationFn: () => downloadFile(wanjiRoutes.backup, { query: { device: device.key } }, 'lucky-backup.json'),
    onSuccess: (name) => pushNotice(wanjiText('backupSaved', { name }), 'green'),
    onError: (e) => pushNotice(e.message, 'red'),
  });
  const off = !device.enable;
  return (
    <Group gap="xs">
      <Button variant="default" onClick={() => backup.mutate()} loading={backup.isPending} disabled={off} data-testid="wanji-backup">
        {wanjiText('backup')}
      </Button>
      <Button variant="light" color="red" onClick={() => setAsking(true)} disabled={off} data-testid="wanji-restart">
        {wanjiText('restart')}
      </Button>
      <Modal opened={asking} onClose={() => setAsking(false)} title={wanjiText('restartTitle')} centered size="sm">
        <Text mb="lg">{wanjiText('restartConfirm', { name: device.name })}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setAsking(false)}>
            {wanjiText('cancel')}
          </Button>
          <Button color="red" loading={act.isPending} onClick={() => act.mutate({ action: 'restart' }, { onSettled: () => setAsking(false) })} data-testid="wanji-restart-confirm">
            {wanjiText('restart')}
          </Button>
        </Group>
      </Modal>
    </Group>
  );
}

/** The device's rules, one tab per module switched on there that has rules. */
function DeviceRules({ device }: { device: Device }) {
  const modules = device.state.modules.filter((m): m is ModuleKey => m in MODULE_CONTRACTS);
  const [tab, setTab] = useState<string | null>(null);
  if (!device.enable || device.state.online !== 'online' || modules.length === 0) {
    return <Text c="dimmed">{wanjiText(device.enable ? 'rulesUnknown' : 'rulesOff')}</Text>;
  }
  const current = tab && modules.includes(tab as ModuleKey) ? (tab as ModuleKey) : modules[0]!;
  return (
    <Tabs value={current} onChange={setTab} keepMounted={false}>
      <Tabs.List mb="sm">
        {modules.map((m) => (
          <Tabs.Tab key={m} value={m} data-testid={`wanji-module-${m}`}>
            {moduleLabel(m)} ({device.state.rules[m]?.total ?? 0})
          </Tabs.Tab>
        ))}
      </Tabs.List>
      <RemoteRules device={device} module={current} />
    </Tabs>
  );
}

function RemoteRules({ device, module }: { device: Device; module: ModuleKey }) {
  const rules = useQuery(remoteRulesQuery(device.key, module));
  const act = useDeviceAction(device.key);
  /** "Run now" of the modules that have one here: a DDNS task synced, a WOL device woken. */
  const run = module === 'ddns' ? ('sync' as const) : module === 'wol' ? ('wake' as const) : null;
  if (rules.isPending) return <Skeleton h={80} />;
  if (rules.isError) return <Alert color="red">{rules.error.message}</Alert>;
  if (rules.data.list.length === 0) return <Text c="dimmed">{wanjiText('noRules')}</Text>;
  return (
    <Table striped data-testid="wanji-remote-rules" data-module={module}>
      <TableHead titles={[wanjiText('colName'), wanjiText('colStatus'), wanjiText('colEnable'), wanjiText('colActions')]} />
      <Table.Tbody>
        {rules.data.list.map((r) => (
          <Table.Tr key={r.key} data-testid="wanji-remote-row" data-name={r.name} data-enable={String(r.enable)}>
            <Table.Td>{r.name}</Table.Td>
            <Table.Td>
              <RuleStatusCell status={r.status} text={wanjiText} testIds={remoteIds} />
            </Table.Td>
            <Table.Td>
              <Switch
                checked={r.enable}
                onChange={(e) => act.mutate({ action: 'switch', module, rule: r.key, enable: e.currentTarget.checked })}
                aria-label={wanjiText('colEnable')}
                data-testid="wanji-remote-toggle"
              />
            </Table.Td>
            <Table.Td>
              {run && (
                <Button size="xs" variant="light" onClick={() => act.mutate({ action: run, rule: r.key })} data-testid={`wanji-remote-${run}`}>
                  {wanjiText(run)}
                </Button>
              )}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
