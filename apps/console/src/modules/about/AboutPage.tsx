/** About: versions (remote info when the probe reached a host, local view otherwise) and program facts. */
import { Alert, Anchor, Button, Card, Group, Modal, SimpleGrid, Skeleton, Stack, Table, Text } from '@mantine/core';
import { coreRoutes } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState, useSyncExternalStore } from 'react';
import { call } from '../../api';
import { pushNotice } from '../../api/notices';
import { infoQuery, versionQuery } from '../../api/queries';
import { PROJECT_SITE } from '../../config';
import { t } from '../../i18n';
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
    if (res) pushNotice(t('about.restarting'), 'blue');
  };

  const i = info.data?.info;
  const rows: [string, string][] = i
    ? [
        [t('about.node'), i.node],
        [t('about.platform'), `${i.platform} ${i.arch}`],
        [t('about.hostname'), i.hostname],
        [t('about.pid'), String(i.pid)],
        [t('about.startTime'), formatDate(i.startTime)],
        [t('about.listen'), i.listen],
        [t('about.dataDir'), i.dataDir],
        [t('about.configFile'), i.configFile],
        [t('about.execPath'), i.execPath],
        [t('about.supervisor'), i.supervisor],
      ]
    : [];

  return (
    <Stack data-testid="about-page">
      <PageTitle>{t('about.title')}</PageTitle>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Card withBorder>
          <Text fw={600} mb="xs">
            {t('about.remoteInfo')}
          </Text>
          <Text fz="sm" mb="sm">
            {t('about.intro')}
          </Text>
          <Table variant="vertical" layout="fixed" withRowBorders={false}>
            <Table.Tbody>
              <Table.Tr>
                <Table.Th w={140}>{t('about.version')}</Table.Th>
                <Table.Td data-testid="about-version">{version.data?.version ?? '-'}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>{t('about.latest')}</Table.Th>
                <Table.Td data-testid="about-latest">{remote ? remote.githubVersion : '…'}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>{t('about.qqGroupVersion')}</Table.Th>
                <Table.Td>{remote ? remote.qqGroupVersion : '…'}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>{t('about.site')}</Table.Th>
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
              {t('about.localView')}
            </Alert>
          )}
        </Card>
        <Card withBorder>
          <Group justify="space-between" mb="xs">
            <Text fw={600}>{t('about.program')}</Text>
            <Button variant="light" color="orange" onClick={() => setConfirmRestart(true)}>
              {t('about.restart')}
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
      <Modal opened={confirmRestart} onClose={() => setConfirmRestart(false)} title={t('logout.title')} centered size="sm">
        <Text mb="lg">{t('about.restartConfirm')}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setConfirmRestart(false)}>
            {t('common.cancel')}
          </Button>
          <Button color="orange" onClick={() => void restart()}>
            {t('common.confirm')}
          </Button>
        </Group>
      </Modal>
    </Stack>
  );
}
