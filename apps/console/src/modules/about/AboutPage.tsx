/** About: this version and the info feed (InfoFeedCard), program facts, restart. */
import { Button, Card, Group, Modal, SimpleGrid, Skeleton, Stack, Table, Text } from '@mantine/core';
import { coreRoutes } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { call } from '../../api';
import { pushNotice } from '../../api/notices';
import { infoQuery, versionQuery } from '../../api/queries';
import { shellText } from '../../i18n';
import { PageTitle } from '../../shell/Shell';
import { InfoFeedCard } from './InfoFeedCard';

const formatDate = (ms: number) => new Date(ms).toLocaleString();

export function AboutPage() {
  const version = useQuery(versionQuery());
  const info = useQuery(infoQuery());
  const [confirmRestart, setConfirmRestart] = useState(false);

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
        <InfoFeedCard version={version.data?.version} />
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
