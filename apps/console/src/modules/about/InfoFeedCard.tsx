/**
 * About → versions: this version, and what the info feed of Settings says, as the daemon read it.
 * The browser asks the daemon only; the card says plainly what is fetched from where, or that
 * nothing is.
 */
import { Alert, Anchor, Badge, Button, Card, Group, Stack, Table, Text } from '@mantine/core';
import { coreRoutes, type InfoFeedState } from '@lucky/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, call } from '../../api';
import { pushNotice } from '../../api/notices';
import { infoFeedQuery } from '../../api/queries';
import { PROJECT_SITE } from '../../config';
import { shellText } from '../../i18n';

function Outside({ feed }: { feed: InfoFeedState }) {
  if (feed.state === 'off') {
    return (
      <Text fz="sm" data-testid="about-outside">
        {shellText('about.outsideNone')}{' '}
        <Anchor href="#/set" fz="sm">
          {shellText('about.outsideNoneLink')}
        </Anchor>
      </Text>
    );
  }
  return (
    <Text fz="sm" data-testid="about-outside">
      {shellText('about.outsideFeed', { url: feed.url })} {feed.fetchedAt > 0 && shellText('about.feedReadAt', { time: new Date(feed.fetchedAt).toLocaleString() })}
    </Text>
  );
}

export function InfoFeedCard({ version }: { version: string | undefined }) {
  const query = useQuery(infoFeedQuery());
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const feed = query.data?.feed;

  const refresh = async () => {
    setBusy(true);
    try {
      queryClient.setQueryData(infoFeedQuery().queryKey, await call(coreRoutes.infoFeed, { query: { refresh: '1' } }, { silent: true }));
    } catch (err) {
      pushNotice(err instanceof ApiError ? err.message : String(err), 'red');
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card withBorder data-testid="about-feed">
      <Group justify="space-between" mb="xs">
        <Text fw={600}>{shellText('about.feedTitle')}</Text>
        {feed && feed.state !== 'off' && (
          <Button variant="light" size="xs" loading={busy} onClick={() => void refresh()} data-testid="about-feed-refresh">
            {shellText('about.feedRefresh')}
          </Button>
        )}
      </Group>
      <Text fz="sm" mb="sm">
        {shellText('about.intro')}
      </Text>
      <Table variant="vertical" layout="fixed" withRowBorders={false}>
        <Table.Tbody>
          <Table.Tr>
            <Table.Th w={140}>{shellText('about.version')}</Table.Th>
            <Table.Td data-testid="about-version">{version ?? '-'}</Table.Td>
          </Table.Tr>
          {feed?.state === 'ok' && (
            <Table.Tr>
              <Table.Th>{shellText('about.latest')}</Table.Th>
              <Table.Td>
                <Group gap="xs">
                  <span data-testid="about-latest">{feed.latestVersion}</span>
                  <Badge variant="light" color={feed.newer ? 'orange' : 'green'} data-testid="about-newer">
                    {shellText(feed.newer ? 'about.newer' : 'about.upToDate')}
                  </Badge>
                  {feed.notesUrl && (
                    <Anchor href={feed.notesUrl} target="_blank" rel="noopener noreferrer" fz="sm" data-testid="about-notes">
                      {shellText('about.notes')}
                    </Anchor>
                  )}
                </Group>
              </Table.Td>
            </Table.Tr>
          )}
          <Table.Tr>
            <Table.Th>{shellText('about.site')}</Table.Th>
            <Table.Td>
              <Anchor href={PROJECT_SITE} target="_blank" rel="noopener noreferrer">
                {PROJECT_SITE}
              </Anchor>
            </Table.Td>
          </Table.Tr>
        </Table.Tbody>
      </Table>
      <Stack gap="xs" mt="sm">
        {feed?.messages.map((m, i) => (
          <Alert key={i} color={m.level === 'warning' ? 'orange' : 'blue'} p="xs" data-testid="about-feed-message">
            {m.text}{' '}
            {m.url && (
              <Anchor href={m.url} target="_blank" rel="noopener noreferrer" fz="sm">
                {shellText('about.more')}
              </Anchor>
            )}
          </Alert>
        ))}
        {feed?.state === 'failed' && (
          <Alert color="orange" p="xs" data-testid="about-feed-error">
            {shellText('about.feedFailed', { error: feed.error })}
          </Alert>
        )}
        {query.isError && (
          <Alert color="red" p="xs">
            {shellText('shell.loadFailed')}
          </Alert>
        )}
        {feed && <Outside feed={feed} />}
      </Stack>
    </Card>
  );
}
