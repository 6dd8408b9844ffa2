/**
 * The system functions of spec section 7 on the settings page: configuration backup and restore
 * (with a summary to confirm), update from a release archive, restart (waiting for the daemon to
 * answer again), the systemd service, garbage collection.
 */
import { Alert, Button, Card, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import { useState, type ReactNode } from 'react';
import { FilePick } from './FilePick';
import { systemText } from './system.i18n';
import { RestartConfirm, RestartWait, RestoreDialog, UpdateDialog } from './SystemDialogs';
import { useSystemActions } from './useSystemActions';

function Block(props: { title: string; intro: string; children: ReactNode }) {
  return (
    <Stack gap={6}>
      <Text fw={500} fz="sm">
        {props.title}
      </Text>
      <Text fz="xs" c="dimmed">
        {props.intro}
      </Text>
      <Group gap="xs">{props.children}</Group>
    </Stack>
  );
}

export function SystemPanel() {
  const actions = useSystemActions();
  const [confirmRestart, setConfirmRestart] = useState(false);
  const { busy, service, gc } = actions;
  /** A small button of one action; busy while that action runs. */
  const action = (id: string, label: string, onClick: () => void, testid: string, color?: string) => (
    <Button size="xs" variant={color ? 'light' : 'default'} color={color} loading={busy === id} onClick={onClick} data-testid={testid}>
      {label}
    </Button>
  );

  return (
    <Card withBorder data-testid="system-panel">
      <Text fw={600} mb="sm">
        {systemText('title')}
      </Text>
      {actions.error && (
        <Alert color="red" p="xs" mb="sm" withCloseButton onClose={actions.clearError} data-testid="sys-error">
          {actions.error}
        </Alert>
      )}
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg" verticalSpacing="lg">
        <Block title={systemText('backupTitle')} intro={systemText('backupIntro')}>
          {action('backup0', systemText('backupDownload'), () => void actions.download(false), 'sys-backup')}
          <Button size="xs" variant="default" color="orange" loading={busy === 'backup1'} onClick={() => void actions.download(true)} title={systemText('backupSecretsHint')} data-testid="sys-backup-secrets">
            {systemText('backupDownloadSecrets')}
          </Button>
        </Block>
        <Block title={systemText('restoreTitle')} intro={systemText('restoreIntro')}>
          <FilePick label={systemText('restoreUpload')} accept=".json,application/json" loading={busy === 'restore'} onFile={(f) => void actions.uploadBackup(f)} testid="sys-restore" />
        </Block>
        <Block title={systemText('updateTitle')} intro={systemText('updateIntro')}>
          <FilePick label={systemText('updateUpload')} accept=".gz,.tgz,application/gzip" loading={busy === 'update'} onFile={(f) => void actions.uploadUpdate(f)} testid="sys-update" />
        </Block>
        <Block title={systemText('restartTitle')} intro={systemText('restartIntro')}>
          {action('restart', systemText('restart'), () => setConfirmRestart(true), 'sys-restart', 'orange')}
        </Block>
        <Stack gap={6}>
          <Block title={systemText('serviceTitle')} intro={systemText('serviceIntro')}>
            {(['install', 'uninstall', 'status'] as const).map((option) => (
              <Button key={option} size="xs" variant="default" loading={busy === `service-${option}`} onClick={() => void actions.serviceCall(option)} data-testid={`sys-service-${option}`}>
                {systemText(option === 'install' ? 'serviceInstall' : option === 'uninstall' ? 'serviceUninstall' : 'serviceStatus')}
              </Button>
            ))}
          </Block>
          {service && (
            <Alert
              p="xs"
              color={service.ok ? 'blue' : 'gray'}
              title={service.ok ? undefined : systemText('serviceUnavailable')}
              withCloseButton
              onClose={actions.clearService}
              data-testid="sys-service-result"
              data-ok={service.ok}
            >
              {service.msg}
            </Alert>
          )}
        </Stack>
        <Stack gap={6}>
          <Block title={systemText('gcTitle')} intro={systemText('gcIntro')}>
            {action('gc', systemText('gcRun'), () => void actions.runGc(), 'sys-gc')}
          </Block>
          {gc && (
            <Text fz="sm" c="teal" data-testid="sys-gc-result">
              {gc}
            </Text>
          )}
        </Stack>
      </SimpleGrid>

      <RestoreDialog actions={actions} />
      <UpdateDialog actions={actions} />
      <RestartConfirm
        opened={confirmRestart}
        onClose={() => setConfirmRestart(false)}
        onConfirm={() => {
          setConfirmRestart(false);
          void actions.restart();
        }}
      />
      <RestartWait waiting={actions.waiting} />
    </Card>
  );
}
