/**
 * The system functions of spec section 7 on the settings page: configuration backup and restore
 * (with a summary to confirm), update from a release archive, restart (waiting for the daemon to
 * answer again), the systemd service, garbage collection.
 */
import { Alert, Badge, Button, Card, Code, Divider, Group, Loader, Modal, SimpleGrid, Stack, Table, Text } from '@mantine/core';
import { Ret, coreRoutes, type BackupSummary } from '@lucky/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type ReactNode } from 'react';
import { ApiError, call } from '../../api';
import { pushNotice } from '../../api/notices';
import { SHELL_TABLES, lang, type MessageId } from '../../i18n';
import { formatBytes } from '../../lib/helpers';
import { freedMemory, summaryIsEmpty, summaryRows } from '../safe/helpers';
import { probeDaemon, waitForRestart } from '../safe/restart';
import { downloadFile, uploadFile } from '../safe/transfer';
import { fmtTime } from '../safe/ui';
import { fieldLabel, systemText } from './system.i18n';

const RESTART_WAIT_S = 90;
type UpdateInfo = { version: string; current: string; files: number; size: number };
type Waiting = { state: 'waiting' | 'timeout' | 'back' } | null;

const errText = (err: unknown) => (err instanceof ApiError ? err.message : String(err));

function moduleName(key: string): string {
  const id = `module.${key}` as MessageId;
  return SHELL_TABLES[lang][id] ?? key;
}

function Block(props: { title: string; intro: string; children: ReactNode }) {
  return (
    <Stack gap={6}>
      <Text fw={500} fz="sm">
        {props.title}
      </Text>
      <Text fz="xs" c="dimmed">
        {props.intro}
      </Text>
      {props.children}
    </Stack>
  );
}

/** A button that opens a file chooser; the input stays in the page for scripts and tests. */
function FilePick(props: { label: string; accept: string; loading: boolean; onFile: (f: File) => void; testid: string }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <input
        ref={input}
        type="file"
        accept={props.accept}
        hidden
        data-testid={`${props.testid}-input`}
        onChange={(e) => {
          const f = e.currentTarget.files?.[0];
          e.currentTarget.value = '';
          if (f) props.onFile(f);
        }}
      />
      <Button variant="default" size="xs" loading={props.loading} onClick={() => input.current?.click()} data-testid={props.testid}>
        {props.label}
      </Button>
    </>
  );
}

function RestoreSummary(props: { summary: BackupSummary }) {
  const s = props.summary;
  const rows = summaryRows(s);
  return (
    <Stack gap="sm" data-testid="sys-restore-summary">
      <Text fz="sm">{systemText('restoreFrom', { version: s.version, time: fmtTime(s.created) })}</Text>
      <Badge variant="light" color={s.secretsIncluded ? 'orange' : 'gray'}>
        {s.secretsIncluded ? systemText('restoreSecretsIn') : systemText('restoreSecretsOut')}
      </Badge>
      {summaryIsEmpty(s) && (
        <Alert color="blue" p="xs" data-testid="sys-restore-nothing">
          {systemText('restoreNothing')}
        </Alert>
      )}
      <div>
        <Text fz="sm" fw={500} mb={4}>
          {systemText('restoreBase')}
        </Text>
        {s.base.length === 0 ? (
          <Text fz="sm" c="dimmed">
            {systemText('restoreBaseNone')}
          </Text>
        ) : (
          <Group gap={6} data-testid="sys-restore-base">
            {s.base.map((f) => (
              <Badge key={f} variant="outline" color="orange" tt="none">
                {fieldLabel(f)}
              </Badge>
            ))}
          </Group>
        )}
      </div>
      {rows.length > 0 && (
        <Table withTableBorder striped verticalSpacing={4} data-testid="sys-restore-modules">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{systemText('restoreModule')}</Table.Th>
              <Table.Th ta="right">{systemText('restoreAdd')}</Table.Th>
              <Table.Th ta="right">{systemText('restoreUpdate')}</Table.Th>
              <Table.Th ta="right">{systemText('restoreRemove')}</Table.Th>
              <Table.Th ta="center">{systemText('restoreSettings')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((r) => (
              <Table.Tr key={r.module} data-testid="sys-restore-module" data-module={r.module}>
                <Table.Td>{moduleName(r.module)}</Table.Td>
                <Table.Td ta="right" c={r.add ? 'green' : 'dimmed'} data-testid="sys-restore-add">
                  {r.add}
                </Table.Td>
                <Table.Td ta="right" c={r.update ? 'blue' : 'dimmed'} data-testid="sys-restore-update">
                  {r.update}
                </Table.Td>
                <Table.Td ta="right" c={r.remove ? 'red' : 'dimmed'} data-testid="sys-restore-remove">
                  {r.remove}
                </Table.Td>
                <Table.Td ta="center">{r.settings ? systemText('restoreSettingsChanged') : systemText('restoreSettingsSame')}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {!summaryIsEmpty(s) && (
        <Text fz="xs" c="orange">
          {systemText('restoreWarn')}
        </Text>
      )}
    </Stack>
  );
}

export function SystemPanel() {
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [restore, setRestore] = useState<{ key: string; summary: BackupSummary } | null>(null);
  const [update, setUpdate] = useState<UpdateInfo | null>(null);
  const [confirmRestart, setConfirmRestart] = useState(false);
  const [waiting, setWaiting] = useState<Waiting>(null);
  const [service, setService] = useState<{ ok: boolean; msg: string; status?: string } | null>(null);
  const [gc, setGc] = useState<string | null>(null);

  const run = async (id: string, fn: () => Promise<void>) => {
    setBusy(id);
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError(errText(err));
    } finally {
      setBusy(null);
    }
  };

  const download = (secrets: boolean) =>
    run(secrets ? 'backup1' : 'backup0', async () => {
      const name = await downloadFile(coreRoutes.configureDownload, { secrets: secrets ? '1' : '0' }, 'lucky-backup.json');
      pushNotice(systemText('backupSaved', { name }), 'green');
    });

  const uploadBackup = (f: File) =>
    run('restore', async () => {
      const r = await uploadFile<{ key: string; summary: BackupSummary }>(coreRoutes.configureUpload, f, f.name);
      setRestore({ key: r.key, summary: r.summary });
    });

  const confirmRestore = () =>
    run('restoreConfirm', async () => {
      if (!restore) return;
      try {
        const r = await call(coreRoutes.restoreConfirm, { query: { key: restore.key } }, { silent: true });
        pushNotice(r.msg || systemText('restoreDone'), 'green');
      } finally {
        setRestore(null);
      }
      // Everything may have changed: settings, modules, rules.
      await queryClient.invalidateQueries();
    });

  /** Waits for the daemon to come back, then reloads (a new build may have come with it). */
  const awaitRestart = async (before: number | undefined) => {
    setWaiting({ state: 'waiting' });
    const back = await waitForRestart({ probe: () => probeDaemon(), ...(before !== undefined ? { before } : {}), timeoutMs: RESTART_WAIT_S * 1000 });
    if (!back) {
      setWaiting({ state: 'timeout' });
      return;
    }
    setWaiting({ state: 'back' });
    setTimeout(() => window.location.reload(), 800);
  };

  const startTime = async () => {
    const p = await probeDaemon();
    return p.state === 'up' ? p.startTime : undefined;
  };

  const uploadUpdate = (f: File) =>
    run('update', async () => {
      const r = await uploadFile<{ info: UpdateInfo }>(coreRoutes.updateUpload, f, f.name);
      setUpdate(r.info);
    });

  const applyUpdate = () =>
    run('updateApply', async () => {
      const before = await startTime();
      try {
        await call(coreRoutes.updateConfirm, { body: {} }, { silent: true });
      } finally {
        setUpdate(null);
      }
      void awaitRestart(before);
    });

  const discardUpdate = () =>
    run('updateDiscard', async () => {
      try {
        const r = await call(coreRoutes.updateCancel, {}, { silent: true });
        pushNotice(r.msg, 'green');
      } finally {
        setUpdate(null);
      }
    });

  const restart = () =>
    run('restart', async () => {
      setConfirmRestart(false);
      const before = await startTime();
      await call(coreRoutes.rebootProgram, {}, { silent: true });
      void awaitRestart(before);
    });

  const serviceCall = (option: 'install' | 'uninstall' | 'status') =>
    run(`service-${option}`, async () => {
      setService(null);
      try {
        const r = await call(coreRoutes.luckyService, { query: { option } }, { silent: true });
        setService({ ok: true, msg: r.msg, status: r.status });
      } catch (err) {
        if (err instanceof ApiError && err.ret === Ret.notAvailable) setService({ ok: false, msg: err.message });
        else throw err;
      }
    });

  const runGc = () =>
    run('gc', async () => {
      const r = await call(coreRoutes.execGc, {}, { silent: true });
      const freed = freedMemory(r.before, r.after);
      setGc(`${r.msg ? `${r.msg}: ` : ''}${systemText('gcResult', { heap: formatBytes(freed.heap), rss: formatBytes(freed.rss), used: formatBytes(r.after.heapUsed) })}`);
    });

  return (
    <Card withBorder data-testid="system-panel">
      <Text fw={600} mb="sm">
        {systemText('title')}
      </Text>
      {error && (
        <Alert color="red" p="xs" mb="sm" withCloseButton onClose={() => setError(null)} data-testid="sys-error">
          {error}
        </Alert>
      )}
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg" verticalSpacing="lg">
        <Block title={systemText('backupTitle')} intro={systemText('backupIntro')}>
          <Group gap="xs">
            <Button size="xs" variant="default" loading={busy === 'backup0'} onClick={() => void download(false)} data-testid="sys-backup">
              {systemText('backupDownload')}
            </Button>
            <Button size="xs" variant="default" color="orange" loading={busy === 'backup1'} onClick={() => void download(true)} title={systemText('backupSecretsHint')} data-testid="sys-backup-secrets">
              {systemText('backupDownloadSecrets')}
            </Button>
          </Group>
        </Block>
        <Block title={systemText('restoreTitle')} intro={systemText('restoreIntro')}>
          <Group gap="xs">
            <FilePick label={systemText('restoreUpload')} accept=".json,application/json" loading={busy === 'restore'} onFile={(f) => void uploadBackup(f)} testid="sys-restore" />
          </Group>
        </Block>
        <Block title={systemText('updateTitle')} intro={systemText('updateIntro')}>
          <Group gap="xs">
            <FilePick label={systemText('updateUpload')} accept=".gz,.tgz,application/gzip" loading={busy === 'update'} onFile={(f) => void uploadUpdate(f)} testid="sys-update" />
          </Group>
        </Block>
        <Block title={systemText('restartTitle')} intro={systemText('restartIntro')}>
          <Group gap="xs">
            <Button size="xs" color="orange" variant="light" loading={busy === 'restart'} onClick={() => setConfirmRestart(true)} data-testid="sys-restart">
              {systemText('restart')}
            </Button>
          </Group>
        </Block>
        <Block title={systemText('serviceTitle')} intro={systemText('serviceIntro')}>
          <Group gap="xs">
            <Button size="xs" variant="default" loading={busy === 'service-install'} onClick={() => void serviceCall('install')} data-testid="sys-service-install">
              {systemText('serviceInstall')}
            </Button>
            <Button size="xs" variant="default" loading={busy === 'service-uninstall'} onClick={() => void serviceCall('uninstall')} data-testid="sys-service-uninstall">
              {systemText('serviceUninstall')}
            </Button>
            <Button size="xs" variant="default" loading={busy === 'service-status'} onClick={() => void serviceCall('status')} data-testid="sys-service-status">
              {systemText('serviceStatus')}
            </Button>
          </Group>
          {service && (
            <Alert
              p="xs"
              color={service.ok ? 'blue' : 'gray'}
              title={service.ok ? undefined : systemText('serviceUnavailable')}
              withCloseButton
              onClose={() => setService(null)}
              data-testid="sys-service-result"
              data-ok={service.ok}
            >
              {service.msg}
            </Alert>
          )}
        </Block>
        <Block title={systemText('gcTitle')} intro={systemText('gcIntro')}>
          <Group gap="xs">
            <Button size="xs" variant="default" loading={busy === 'gc'} onClick={() => void runGc()} data-testid="sys-gc">
              {systemText('gcRun')}
            </Button>
          </Group>
          {gc && (
            <Text fz="sm" c="teal" data-testid="sys-gc-result">
              {gc}
            </Text>
          )}
        </Block>
      </SimpleGrid>

      <Modal opened={restore !== null} onClose={() => setRestore(null)} title={systemText('restoreSummaryTitle')} size="lg" closeOnClickOutside={false}>
        {restore && (
          <Stack gap="md">
            <RestoreSummary summary={restore.summary} />
            <Divider />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setRestore(null)}>
                {systemText('cancel')}
              </Button>
              <Button color="orange" loading={busy === 'restoreConfirm'} onClick={() => void confirmRestore()} data-testid="sys-restore-confirm">
                {systemText('restoreConfirm')}
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>

      <Modal opened={update !== null} onClose={() => void discardUpdate()} title={systemText('updateInfoTitle')} size="md" closeOnClickOutside={false}>
        {update && (
          <Stack gap="md" data-testid="sys-update-info">
            <Table withTableBorder verticalSpacing={4}>
              <Table.Tbody>
                <Table.Tr>
                  <Table.Td c="dimmed">{systemText('updateCurrent')}</Table.Td>
                  <Table.Td>
                    <Code>{update.current}</Code>
                  </Table.Td>
                </Table.Tr>
                <Table.Tr>
                  <Table.Td c="dimmed">{systemText('updateVersion')}</Table.Td>
                  <Table.Td>
                    <Code fw={700} data-testid="sys-update-version">
                      {update.version}
                    </Code>
                  </Table.Td>
                </Table.Tr>
                <Table.Tr>
                  <Table.Td c="dimmed">{systemText('updateFiles')}</Table.Td>
                  <Table.Td>{update.files}</Table.Td>
                </Table.Tr>
                <Table.Tr>
                  <Table.Td c="dimmed">{systemText('updateSize')}</Table.Td>
                  <Table.Td>{formatBytes(update.size)}</Table.Td>
                </Table.Tr>
              </Table.Tbody>
            </Table>
            <Group justify="flex-end">
              <Button variant="default" loading={busy === 'updateDiscard'} onClick={() => void discardUpdate()} data-testid="sys-update-cancel">
                {systemText('updateDiscard')}
              </Button>
              <Button color="orange" loading={busy === 'updateApply'} onClick={() => void applyUpdate()} data-testid="sys-update-apply">
                {systemText('updateApply')}
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>

      <Modal opened={confirmRestart} onClose={() => setConfirmRestart(false)} title={systemText('restartTitle')} centered size="sm">
        <Text fz="sm" mb="lg">
          {systemText('restartConfirm')}
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setConfirmRestart(false)}>
            {systemText('cancel')}
          </Button>
          <Button color="orange" onClick={() => void restart()} data-testid="sys-restart-confirm">
            {systemText('restart')}
          </Button>
        </Group>
      </Modal>

      <Modal opened={waiting !== null} onClose={() => undefined} withCloseButton={false} closeOnClickOutside={false} closeOnEscape={false} centered size="sm">
        {waiting && (
          <Stack align="center" gap="sm" py="md" data-testid="sys-restart-wait" data-state={waiting.state}>
            {waiting.state === 'timeout' ? (
              <>
                <Text fz="sm" ta="center" c="red">
                  {systemText('restartTimeout', { seconds: RESTART_WAIT_S })}
                </Text>
                <Button onClick={() => window.location.reload()}>{systemText('reload')}</Button>
              </>
            ) : (
              <>
                <Loader />
                <Text fz="sm" ta="center">
                  {waiting.state === 'back' ? systemText('restartBack') : systemText('restarting')}
                </Text>
              </>
            )}
          </Stack>
        )}
      </Modal>
    </Card>
  );
}
