/**
 * "Find devices": the button in the WOL page's title bar and its dialog. The user picks an
 * interface (one of its IPv4 networks), starts the scan, watches its progress, and adds any found
 * device as a WOL device in one click, its fields filled from what the scan saw.
 */
import { Alert, Badge, Button, Group, Modal, NativeSelect, Progress, Stack, Table, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { WolScan, WolScanDevice } from '@lucky/contracts';
import { useState } from 'react';
import { call } from '../../api';
import { pushNotice } from '../../api/notices';
import { wolText } from './i18n';
import { wolInterfacesQuery, wolScanQuery } from './queries';
import { wolRules } from './ruleModule';
import { deviceName, scanChoices, scannedDevice } from './scan';

export function FindDevicesButton({ enabled }: { enabled: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="default" onClick={() => setOpen(true)} disabled={!enabled} data-testid="wol-scan-open">
        {wolText('scanOpen')}
      </Button>
      {open && <FindDevicesDialog onClose={() => setOpen(false)} />}
    </>
  );
}

export function FindDevicesDialog({ onClose }: { onClose: () => void }) {
  const queryClient = useQueryClient();
  const choices = scanChoices(useQuery(wolInterfacesQuery()).data?.interfaces ?? []);
  const scan = useQuery(wolScanQuery()).data?.scan ?? null;
  const [picked, setPicked] = useState('');
  const choice = choices.find((c) => c.value === picked) ?? choices.find((c) => !c.tooLarge);
  const start = useMutation({
    mutationFn: () => call(wolRules.routes.scan, { body: { interface: choice!.name, address: choice!.address } }),
    onSuccess: (r) => queryClient.setQueryData(wolScanQuery().queryKey, { ret: 0 as const, scan: r.scan }),
  });
  const running = scan?.state === 'running';
  return (
    <Modal opened onClose={onClose} title={wolText('scanTitle')} size="xl" data-testid="wol-scan-dialog">
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          {wolText('scanHint')}
        </Text>
        <Group align="flex-end">
          <NativeSelect
            label={wolText('scanInterface')}
            value={choice?.value ?? ''}
            onChange={(e) => setPicked(e.currentTarget.value)}
            data={choices.map((c) => ({ value: c.value, label: c.tooLarge ? wolText('scanTooLarge', { name: c.name, subnet: c.subnet }) : `${c.name} · ${c.subnet}`, disabled: c.tooLarge }))}
            style={{ flex: 1 }}
            data-testid="wol-scan-interface"
          />
          <Button onClick={() => start.mutate()} loading={start.isPending || running} disabled={!choice || choice.tooLarge} data-testid="wol-scan-start">
            {wolText(scan ? 'scanAgain' : 'scanStart')}
          </Button>
        </Group>
        {scan && <ScanProgress scan={scan} />}
        {scan && <ScanResults scan={scan} />}
      </Stack>
    </Modal>
  );
}

function ScanProgress({ scan }: { scan: WolScan }) {
  if (scan.state === 'failed') return <Alert color="red" data-testid="wol-scan-failed">{scan.msg}</Alert>;
  const seconds = scan.finishedAt ? Math.round((scan.finishedAt - scan.startedAt) / 100) / 10 : 0;
  const text =
    scan.phase === 'done'
      ? wolText('scanPhase.done', { count: scan.devices.length, seconds, subnet: scan.subnet })
      : wolText(`scanPhase.${scan.phase}`, { probed: scan.probed, total: scan.total });
  // The sweep is most of the time; names the last stretch.
  const value = scan.state === 'done' ? 100 : scan.phase === 'names' ? 95 : Math.round((scan.probed / Math.max(1, scan.total)) * 90);
  return (
    <Stack gap={4}>
      <Progress value={value} animated={scan.state === 'running'} data-testid="wol-scan-progress" data-value={value} />
      <Text size="sm" data-testid="wol-scan-phase" data-state={scan.state}>
        {text}
      </Text>
    </Stack>
  );
}

function ScanResults({ scan }: { scan: WolScan }) {
  if (scan.devices.length === 0) return scan.state === 'running' ? null : <Text c="dimmed">{wolText('scanNone')}</Text>;
  return (
    <Table striped data-testid="wol-scan-results">
      <Table.Thead>
        <Table.Tr>
          {(['scanAddress', 'scanMac', 'scanVendor', 'scanName', 'colActions'] as const).map((k) => (
            <Table.Th key={k}>{wolText(k)}</Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {scan.devices.map((d) => (
          <Table.Tr key={d.address} data-testid="wol-scan-row" data-mac={d.mac}>
            <Table.Td>{d.address}</Table.Td>
            <Table.Td style={{ fontFamily: 'monospace', fontSize: 12 }}>{d.mac}</Table.Td>
            <Table.Td>{d.vendor}</Table.Td>
            <Table.Td>{d.mdnsName || d.dnsName}</Table.Td>
            <Table.Td>
              <AddFound device={d} scan={scan} />
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function AddFound({ device, scan }: { device: WolScanDevice; scan: WolScan }) {
  const queryClient = useQueryClient();
  const add = useMutation({
    mutationFn: () => call(wolRules.routes.create, { body: scannedDevice(device, scan) }),
    onSuccess: async () => {
      pushNotice(wolText('scanAddedNotice', { name: deviceName(device) }), 'green');
      await queryClient.invalidateQueries({ queryKey: ['wol'] });
    },
  });
  if (device.known !== null) {
    return (
      <Badge variant="light" color="green" data-testid="wol-scan-known">
        {wolText('scanAdded')}
      </Badge>
    );
  }
  return (
    <Button size="xs" onClick={() => add.mutate()} loading={add.isPending} disabled={add.isSuccess} data-testid="wol-scan-add">
      {wolText(add.isSuccess ? 'scanAdded' : 'scanAdd')}
    </Button>
  );
}
