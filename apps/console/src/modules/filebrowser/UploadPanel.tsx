/** The uploads: one line per file with its progress bar and state, a total, resume and cancel. */
import { Button, Group, Paper, Progress, Stack, Text } from '@mantine/core';
import { fbText } from './i18n';
import { human } from './queries';
import type { UploadItem, UploadQueue } from './uploads';

function stateText(i: UploadItem): string {
  switch (i.state) {
    case 'waiting':
      return fbText('uploadWaiting');
    case 'running':
      return fbText('uploadRunning');
    case 'retrying':
      return fbText('uploadRetrying', { n: i.attempt });
    case 'done':
      return fbText('uploadDone');
    case 'failed':
      return fbText('uploadFailed', { msg: i.error });
    case 'canceled':
      return fbText('uploadCanceled');
  }
}

export function UploadPanel(props: { queue: UploadQueue; items: UploadItem[] }) {
  const { queue, items } = props;
  if (items.length === 0) return null;
  const t = queue.totals();
  const pct = t.size === 0 ? 100 : Math.round((t.sent / t.size) * 100);
  return (
    <Paper withBorder p="sm" data-testid="fb-uploads">
      <Group justify="space-between" mb="xs">
        <Text fw={600} fz="sm">
          {fbText('uploadsTitle')}
        </Text>
        <Group gap="xs">
          <Text fz="xs" c="dimmed" data-testid="fb-upload-total">
            {fbText('uploadTotal', { done: human(t.sent), total: human(t.size) })}
          </Text>
          <Button size="compact-xs" variant="subtle" onClick={() => queue.clearFinished()}>
            {fbText('uploadClear')}
          </Button>
        </Group>
      </Group>
      <Progress value={pct} mb="sm" data-testid="fb-upload-total-bar" />
      <Stack gap={6}>
        {items.map((i) => (
          <div key={i.key} data-testid="fb-upload-item" data-state={i.state} data-path={i.path}>
            <Group justify="space-between" gap="xs" wrap="nowrap">
              <Text fz="xs" style={{ wordBreak: 'break-all' }}>
                {i.path}
              </Text>
              <Group gap={4} wrap="nowrap">
                <Text fz="xs" c={i.state === 'failed' ? 'red' : 'dimmed'} data-testid="fb-upload-state">
                  {stateText(i)} · {human(i.sent)} / {human(i.size)}
                </Text>
                {i.state === 'failed' && (
                  <Button size="compact-xs" variant="light" onClick={() => queue.resume(i)} data-testid="fb-upload-resume">
                    {fbText('uploadResume')}
                  </Button>
                )}
                {(i.state === 'waiting' || i.state === 'running' || i.state === 'retrying' || i.state === 'failed') && (
                  <Button size="compact-xs" variant="subtle" color="red" onClick={() => void queue.cancel(i)} data-testid="fb-upload-cancel">
                    {fbText('uploadCancel')}
                  </Button>
                )}
              </Group>
            </Group>
            <Progress size="xs" value={i.size === 0 ? (i.state === 'done' ? 100 : 0) : (i.sent / i.size) * 100} color={i.state === 'failed' ? 'red' : i.state === 'done' ? 'teal' : 'blue'} />
          </div>
        ))}
      </Stack>
    </Paper>
  );
}
