/**
 * A service's card of checks: one row per link of the chain (DNS, certificate, web rule, target,
 * router), a light for its state, what was found and, under a failed one, what to do. Texts come in
 * the reader's language from the daemon.
 */
import { Box, Group, Stack, Text } from '@mantine/core';
import type { PublishCheck } from '@lucky/contracts';
import { formatTime } from '../../kit/form/values';
import { publishText as t } from './i18n';

/** Pending is yellow once looked at (something is on its way: a certificate being ordered), grey before the first look. */
export function lightColor(c: Pick<PublishCheck, 'state' | 'checked'>): string {
  if (c.state === 'ok') return 'green';
  if (c.state === 'failed') return 'red';
  return c.checked > 0 ? 'yellow' : 'gray';
}

function Light({ check }: { check: PublishCheck }) {
  const color = lightColor(check);
  return (
    <Box
      w={12}
      h={12}
      mt={4}
      role="img"
      aria-label={t(`checkState.${check.state}`)}
      style={{ borderRadius: '50%', flex: 'none', background: `var(--mantine-color-${color}-6)`, boxShadow: `0 0 0 3px var(--mantine-color-${color}-1)` }}
      data-testid="publish-light"
      data-color={color}
    />
  );
}

export function CheckList({ checks }: { checks: readonly PublishCheck[] }) {
  return (
    <Stack gap={8} data-testid="publish-checks">
      {checks.map((c) => (
        <Group key={c.id} gap="sm" wrap="nowrap" align="flex-start" title={c.checked ? t('checkedAt', { time: formatTime(c.checked) }) : undefined} data-testid="publish-check" data-check={c.id} data-state={c.state}>
          <Light check={c} />
          <Box miw={0} style={{ flex: 1 }}>
            <Text fz="sm" fw={500} lh={1.4}>
              {t(`check.${c.id}`)}
            </Text>
            <Text fz="xs" c={c.state === 'failed' ? 'red' : 'dimmed'} style={{ wordBreak: 'break-word' }} data-testid="publish-check-message">
              {c.message}
            </Text>
            {c.state === 'failed' && c.hint && (
              <Text fz="xs" style={{ wordBreak: 'break-word' }} data-testid="publish-check-hint">
                → {c.hint}
              </Text>
            )}
          </Box>
        </Group>
      ))}
    </Stack>
  );
}
