/** About: versions (remote info when the probe reached a host, local view otherwise) and program facts. */
import { Alert, Anchor, Button, Card, Group, Modal, SimpleGrid, Skeleton, Stack, Table, Text } from '@mantine/core';
import { coreRoutes } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState, useSyncExternalStore } from 'react';
import { call } from '../../api';
import { pushNotice } from '../../api/notices';
import { infoQuery, versionQuery } from '../../api/queries';
import { PROJECT_SITE } from '../../config';
import { shellText } from '../../i18n';
import { getRemoteState, subscribeRemote, UNKNOWN_VERSION } from '../../remote';
import { PageTitle } from '../../shell/Shell';
import { storage } from '../../storage';

const formatDate = (ms: number) => new Date(ms).toLocaleString();

export function AboutPage() {
  const version = useQuery(versionQuery());
  const info = useQuery(infoQuery());
  const probed = useSyncExternalStore(subscribeRemote, getRemoteState, getRemoteState);
  // While this page load's probe runs, show what the last one found.
  const stored = storage.all();
  const remote =
    probed ??
    (stored.githubVersion
      ? {
          githubVersion: stored.githubVersion,
          qqGroupVersion: stored.qqGroupVersion ?? UNKNOWN_VERSION,
          staticHost: stored.staticHost ?? '',
          showAboutView: stored.showAboutView ?? false,
        }
      : undefined);
  const [confirmRestart, setConfirmRestart] = useState(false);
  const showAbout = remote?.showAboutView ?? storage.get('showAboutView') ?? false;

  const restart = async () => {
    setConfirmRestart(false);
    const res = await call(coreRoutes.rebootProgram, {}).catch(() => null);
    if (res) pushNotice(shellText('about.restarting'), 'blue');
  };

  const i = info.data?.info;
  const rows: [string, string][] = i
    ? [
        [shellText('about.node'), i.node],
        [shellText('about.platform'), `${i.platform} ${i.arch}`],
        [shellText('about.hostname'), i.hostname],
        [shellText('about.pid'), String(i.pid)],
        [shellText('about.startTime'), formatDate(i.startTime)],
        [shellText('about.listen'), i.listen],
        [shellText('about.dataDir'), i.dataDir],
        [shellText('about.configFile'), i.configFile],
        [shellText('about.execPath'), i.execPath],
        [shellText('about.supervisor'), i.supervisor],
      ]
    : [];

  return (
    <Stack data-testid="about-page">
      <PageTitle>{shellText('about.title')}</PageTitle>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Card withBorder>
          <Text fw={600} mb="xs">
            {shellText('about.remoteInfo')}
          </Text>
          <Text fz="sm" mb="sm">
            {shellText('about.intro')}
          </Text>
          <Table variant="vertical" layout="fixed" withRowBorders={false}>
            <Table.Tbody>
              <Table.Tr>
                <Table.Th w={140}>{shellText('about.version')}</Table.Th>
                <Table.Td data-testid="about-version">{version.data?.version ?? '-'}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>{shellText('about.latest')}</Table.Th>
                <Table.Td data-testid="about-latest">{remote ? remote.githubVersion : '…'}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>{shellText('about.qqGroupVersion')}</Table.Th>
                <Table.Td>{remote ? remote.qqGroupVersion : '…'}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>{shellText('about.site')}</Table.Th>
                <Table.Td>
                  <Anchor href={showAbout && remote?.staticHost ? remote.staticHost : PROJECT_SITE} target="_blank" rel="noopener noreferrer">
                    {showAbout && remote?.staticHost ? remote.staticHost : PROJECT_SITE}
                  </Anchor>
                </Table.Td>
              </Table.Tr>
            </Table.Tbody>
          </Table>
          {remote && !showAbout && (
            <Alert mt="sm" color="gray" data-testid="about-local-view" p="xs">
              {shellText('about.localView')}
            </Alert>
          )}
        </Card>
        <Card withBorder>
          <Group justify="space-between" mb="xs">
            <Text fw={600}>{shellText('about.program')}</Text>
            <Button variant="light" color="orange" onClick={() => setConfirmRestart(true)}>
              {shellText('about.restart')}
            </Button>
          </Group>
          {info.isPending ? (
            <Skeleton h={200} />
          ) : (
            <Table variant="vertical" layout="fixed" withRowBorders={false} fz="sm">
              <Table.Tbody>
                {rows.map(([k, v]) => (
                  <Table.Tr key={k}>
                    <Table.Th w={140}>{k}</Table.Th>
                    <Table.Td style={{ wordBreak: 'break-all' }}>{v}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Card>
      </SimpleGrid>
      <Modal opened={confirmRestart} onClose={() => setConfirmRestart(false)} title={shellText('logout.title')} centered size="sm">
        <Text mb="lg">{shellText('about.restartConfirm')}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setConfirmRestart(false)}>
            {shellText('common.cancel')}
          </Button>
          <Button color="orange" onClick={() => void restart()}>
            {shellText('common.confirm')}
          </Button>
        </Group>
      </Modal>
    </Stack>
  );
}
