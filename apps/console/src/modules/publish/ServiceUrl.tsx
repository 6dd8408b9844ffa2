/** What to open: the service's public address, copied with one click, opened in a new tab. */
import { Anchor, Button, CopyButton, Group, Text, Tooltip } from '@mantine/core';
import { publishText as t } from './i18n';

export function ServiceUrl({ url }: { url: string }) {
  if (!url) {
    return (
      <Text fz="sm" c="dimmed" data-testid="publish-url" data-url="">
        {t('urlNone')}
      </Text>
    );
  }
  return (
    <Group gap="xs" wrap="nowrap">
      <Text fz="sm" fw={500} ff="monospace" truncate="end" title={url} data-testid="publish-url" data-url={url}>
        {url}
      </Text>
      <CopyButton value={url}>
        {({ copied, copy }) => (
          <Tooltip label={copied ? t('copied') : t('copyHint')} withArrow>
            <Button size="compact-xs" variant="default" color={copied ? 'teal' : undefined} onClick={copy} data-testid="publish-copy" data-copied={String(copied)}>
              {copied ? t('copied') : t('copy')}
            </Button>
          </Tooltip>
        )}
      </CopyButton>
      <Anchor href={url} target="_blank" rel="noreferrer" fz="sm" style={{ whiteSpace: 'nowrap' }} data-testid="publish-open">
        {t('open')} ↗
      </Anchor>
    </Group>
  );
}
