/** The system panel's confirmations: a restore's summary, an update's version, a restart, and the wait for the daemon. */
import { Button, Code, Divider, Group, Loader, Modal, Stack, Table, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { formatBytes } from '../../lib/helpers';
import { RestoreSummary } from './RestoreSummary';
import { systemText } from './system.i18n';
import { RESTART_WAIT_S, type SystemActions } from './useSystemActions';

function Buttons(props: { children: ReactNode }) {
  return <Group justify="flex-end">{props.children}</Group>;
}

export function RestoreDialog({ actions }: { actions: SystemActions }) {
  const { restore, busy } = actions;
  return (
    <Modal opened={restore !== null} onClose={actions.cancelRestore} title={systemText('restoreSummaryTitle')} size="lg" closeOnClickOutside={false}>
      {restore && (
        <Stack gap="md">
          <RestoreSummary summary={restore.summary} />
          <Divider />
          <Buttons>
            <Button variant="default" onClick={actions.cancelRestore}>
              {systemText('cancel')}
            </Button>
            <Button color="orange" loading={busy === 'restoreConfirm'} onClick={() => void actions.confirmRestore()} data-testid="sys-restore-confirm">
              {systemText('restoreConfirm')}
            </Button>
          </Buttons>
        </Stack>
      )}
    </Modal>
  );
}

export function UpdateDialog({ actions }: { actions: SystemActions }) {
  const { update, busy } = actions;
  const row = (label: string, value: ReactNode) => (
    <Table.Tr>
      <Table.Td c="dimmed">{label}</Table.Td>
      <Table.Td>{value}</Table.Td>
    </Table.Tr>
  );
  return (
    <Modal opened={update !== null} onClose={() => void actions.discardUpdate()} title={systemText('updateInfoTitle')} size="md" closeOnClickOutside={false}>
      {update && (
        <Stack gap="md" data-testid="sys-update-info">
          <Table withTableBorder verticalSpacing={4}>
            <Table.Tbody>
              {row(systemText('updateCurrent'), <Code>{update.current}</Code>)}
              {row(
                systemText('updateVersion'),
                <Code fw={700} data-testid="sys-update-version">
                  {update.version}
                </Code>,
              )}
              {row(systemText('updateFiles'), update.files)}
              {row(systemText('updateSize'), formatBytes(update.size))}
            </Table.Tbody>
          </Table>
          <Buttons>
            <Button variant="default" loading={busy === 'updateDiscard'} onClick={() => void actions.discardUpdate()} data-testid="sys-update-cancel">
              {systemText('updateDiscard')}
            </Button>
            <Button color="orange" loading={busy === 'updateApply'} onClick={() => void actions.applyUpdate()} data-testid="sys-update-apply">
              {systemText('updateApply')}
            </Button>
          </Buttons>
        </Stack>
      )}
    </Modal>
  );
}

export function RestartConfirm(props: { opened: boolean; onClose: () => void; onConfirm: () => void }) {
  return (
    <Modal opened={props.opened} onClose={props.onClose} title={systemText('restartTitle')} centered size="sm">
      <Text fz="sm" mb="lg">
        {systemText('restartConfirm')}
      </Text>
      <Buttons>
        <Button variant="default" onClick={props.onClose}>
          {systemText('cancel')}
        </Button>
        <Button color="orange" onClick={props.onConfirm} data-testid="sys-restart-confirm">
          {systemText('restart')}
        </Button>
      </Buttons>
    </Modal>
  );
}

/** Until the daemon answers again: nothing else can be done meanwhile. */
export function RestartWait({ waiting }: { waiting: SystemActions['waiting'] }) {
  return (
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
  );
}
