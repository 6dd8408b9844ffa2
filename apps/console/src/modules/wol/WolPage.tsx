/** Wake-on-LAN: devices (MACs, broadcast, port, SecureOn, repeat), wake now, wake and wait, shut down, switch, edit, log, delete; find devices on a subnet. */
import { Badge, Button, Code, Group, Modal, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import type { wolRoutes } from '@lucky/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call } from '../../api';
import { pushNotice } from '../../api/notices';
import { RuleNameCell, RuleStatusCell } from '../../kit/rule-list/RuleCells';
import type { RuleViewOf } from '../../kit/rule-list/ruleModule';
import { RulePage, type RuleColumn } from '../../kit/rule-list/RulePage';
import { FindDevicesButton } from './FindDevices';
import { wolText } from './i18n';
import { RuleForm } from './RuleForm';
import { wolOnlineQuery } from './queries';
import { wolRules } from './ruleModule';

type Row = RuleViewOf<typeof wolRoutes>;

const columns: RuleColumn<Row>[] = [
  { head: wolText('colName'), cell: (d) => <RuleNameCell name={d.name} note={d.note} testId={wolRules.testIds.rowName} /> },
  { head: wolText('macs'), td: { style: { fontFamily: 'monospace', fontSize: 12 } }, cell: (d) => d.macs.map((m) => <div key={m}>{m}</div>) },
  { head: wolText('broadcast'), td: { fz: 'sm' }, cell: (d) => `${d.broadcast}:${d.port}` },
  { head: wolText('online'), cell: (d) => <OnlineBadge device={d.key} /> },
  { head: wolText('status'), cell: (d) => <RuleStatusCell status={d.status} text={wolText} testIds={wolRules.testIds} /> },
  { head: wolText('lastWake'), td: { fz: 'sm', 'data-testid': 'wol-lastwake' }, cell: (d) => (d.lastWake ? new Date(d.lastWake).toLocaleString() : wolText('never')) },
];

export function WolPage() {
  return (
    <RulePage
      rules={wolRules}
      columns={columns}
      rowProps={(d) => ({ 'data-name': d.name })}
      tools={(_rows, enabled) => <FindDevicesButton enabled={enabled} />}
      actions={(d) => (
        <>
          <WakeButton device={d} />
          {d.checkHost !== '' && <WakeWaitButton device={d} />}
          {d.shutdown.kind !== 'none' && <ShutdownButton device={d} />}
        </>
      )}
      Form={RuleForm}
    />
  );
}

const ONLINE_COLOR = { online: 'green', offline: 'gray', unknown: 'gray' } as const;

/** Live: the list asks the daemon every few seconds while it is shown (one query for all rows). */
function OnlineBadge({ device }: { device: string }) {
  const state = useQuery(wolOnlineQuery()).data?.online[device] ?? 'unknown';
  return (
    <Badge color={ONLINE_COLOR[state]} variant={state === 'online' ? 'filled' : 'light'} data-testid="wol-online" data-state={state}>
      {wolText(`online.${state}`)}
    </Badge>
  );
}

/**
 * Wake, then follow the online check (the daemon's wakewait route holds a request up to minutes;
 * the console's requests are short, so it asks the list's online states until the device answers).
 */
function WakeWaitButton({ device }: { device: Row }) {
  const queryClient = useQueryClient();
  const wake = useMutation({
    mutationFn: async () => {
      const t0 = Date.now();
      await call(wolRules.routes.wake, { params: { key: device.key } });
      while (Date.now() - t0 < WAIT_MS) {
        await new Promise((r) => setTimeout(r, 2000));
        const r = await call(wolRules.routes.online, {}, { silent: true }).catch(() => null);
        if (r?.online[device.key] === 'online') return { online: true, seconds: Math.round((Date.now() - t0) / 100) / 10 };
      }
      return { online: false, seconds: WAIT_MS / 1000 };
    },
    onSuccess: async (r) => {
      pushNotice(wolText(r.online ? 'wakeWaitUp' : 'wakeWaitDown', { seconds: r.seconds }), r.online ? 'green' : 'red');
      await queryClient.invalidateQueries({ queryKey: ['wol'] });
    },
  });
  return (
    <Button size="xs" variant="light" onClick={() => wake.mutate()} loading={wake.isPending} data-testid="wol-wakewait">
      {wolText('wakeWait')}
    </Button>
  );
}

const WAIT_MS = 180_000;

function WakeButton({ device }: { device: Row }) {
  const queryClient = useQueryClient();
  const wake = useMutation({
    mutationFn: () => call(wolRules.routes.wake, { params: { key: device.key } }),
    onSuccess: async (r) => {
      pushNotice(r.msg, 'green');
      await queryClient.invalidateQueries({ queryKey: wolRules.queries.keys.all });
    },
  });
  return (
    <Button size="xs" onClick={() => wake.mutate()} loading={wake.isPending} data-testid="wol-wake">
      {wolText('wake')}
    </Button>
  );
}

type ShutdownAnswer = Awaited<ReturnType<typeof call<typeof wolRules.routes.shutdown>>>;

/** Shut down, after a confirmation; the answer (exit code or HTTP status, output) in a dialog. */
function ShutdownButton({ device }: { device: Row }) {
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState(false);
  const [result, setResult] = useState<ShutdownAnswer | null>(null);
  const shut = useMutation({
    mutationFn: () => call(wolRules.routes.shutdown, { params: { key: device.key } }),
    onSuccess: async (r) => {
      setAsking(false);
      setResult(r);
      await queryClient.invalidateQueries({ queryKey: wolRules.queries.keys.all });
    },
    onError: () => setAsking(false),
  });
  return (
    <>
      <Button size="xs" variant="light" color="red" onClick={() => setAsking(true)} data-testid="wol-shutdown">
        {wolText('shutdownRun')}
      </Button>
      <Modal opened={asking} onClose={() => setAsking(false)} title={wolText('shutdownConfirmTitle')} centered size="sm">
        <Text mb="lg" data-testid="wol-shutdown-question">
          {wolText('shutdownConfirm', { name: device.name })}
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setAsking(false)} data-testid="wol-shutdown-cancel">
            {wolText('cancel')}
          </Button>
          <Button color="red" loading={shut.isPending} onClick={() => shut.mutate()} data-testid="wol-shutdown-confirm">
            {wolText('shutdownRun')}
          </Button>
        </Group>
      </Modal>
      <Modal opened={result !== null} onClose={() => setResult(null)} title={wolText('shutdownResultTitle', { name: device.name })} size="lg" data-testid="wol-shutdown-result">
        {result && (
          <Stack gap="xs">
            <Badge color={result.ok ? 'green' : 'red'} variant="light" data-testid="wol-shutdown-msg" data-ok={String(result.ok)} style={{ textTransform: 'none' }}>
              {result.msg}
            </Badge>
            {result.exitCode !== null && (
              <Text size="sm" data-testid="wol-shutdown-exitcode">
                {wolText('exitCode')}: {result.exitCode}
              </Text>
            )}
            {result.httpStatus !== null && (
              <Text size="sm" data-testid="wol-shutdown-httpstatus">
                {wolText('httpStatus')}: {result.httpStatus}
              </Text>
            )}
            <Text size="sm" fw={600}>
              {wolText('output')} {result.truncated && wolText('outputTruncated')}
            </Text>
            <Code block mah={320} style={{ overflow: 'auto', whiteSpace: 'pre-wrap' }} data-testid="wol-shutdown-output">
              {result.output === '' ? wolText('noOutput') : result.output}
            </Code>
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setResult(null)} data-testid="wol-shutdown-close">
                {wolText('close')}
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </>
  );
}
