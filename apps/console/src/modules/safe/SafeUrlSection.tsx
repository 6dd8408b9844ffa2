/**
 * The safe entry path. Once it changes, this page's address stops answering (every further request
 * here would fail and count toward the logout threshold), so nothing is asked again: the new address
 * is shown and the browser goes there.
 */
import { Alert, Anchor, Button, Code, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { ZSafeUrl, safeRoutes } from '@lucky/contracts';
import { useEffect, useState } from 'react';
import { call } from '../../api';
import { lang } from '../../i18n';
import { safeEntryAddress } from './helpers';
import { safeText } from './i18n';
import { CopyBtn, Section } from './ui';
import { useSubmit } from './useSubmit';

export const MOVE_AFTER_S = 10;

function go(address: string): void {
  window.location.assign(`${address}#/safe`);
}

export function SafeUrlSection(props: { safeURL: string }) {
  const [path, setPath] = useState(props.safeURL);
  const { error, setError, busy, submit } = useSubmit();
  const [moved, setMoved] = useState<{ address: string; cleared: boolean } | null>(null);
  const [left, setLeft] = useState(MOVE_AFTER_S);

  useEffect(() => {
    if (!moved) return;
    setLeft(MOVE_AFTER_S);
    const timer = setInterval(() => setLeft((s) => s - 1), 1000);
    return () => clearInterval(timer);
  }, [moved]);
  useEffect(() => {
    if (moved && left <= 0) go(moved.address);
  }, [moved, left]);

  const apply = (value: string) =>
    submit(ZSafeUrl, value, async (safeURL) => {
      const r = await call(safeRoutes.putSafeUrl, { body: { safeURL } }, { silent: true });
      setMoved({ address: safeEntryAddress(window.location.origin, r.safeURL), cleared: r.safeURL === '' });
    });

  const current = props.safeURL ? safeEntryAddress(window.location.origin, props.safeURL) : null;

  return (
    <Section testid="safe-url" title={safeText('su.title')} intro={safeText('su.intro')}>
      <Stack gap="sm">
        <Group gap="xs">
          <Text fz="sm">{safeText('su.current')}:</Text>
          {current ? (
            <Code data-testid="safe-url-current">{current}</Code>
          ) : (
            <Text fz="sm" c="dimmed" data-testid="safe-url-current">
              {safeText('su.none')}
            </Text>
          )}
        </Group>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (path.trim() === '') setError(safeText('su.emptyPath'));
            else void apply(path);
          }}
          noValidate
        >
          <Group align="flex-end" gap="xs">
            <TextInput
              label={safeText('su.path')}
              description={safeText('su.pathHint')}
              leftSection={<Text fz="sm">/</Text>}
              maxLength={64}
              value={path}
              onChange={(e) => setPath(e.currentTarget.value)}
              style={{ flex: 1, maxWidth: 420 }}
              data-testid="safe-url-input"
            />
            <Button type="submit" loading={busy} data-testid="safe-url-set">
              {safeText('su.set')}
            </Button>
            {props.safeURL && (
              <Button variant="light" color="red" onClick={() => void apply('')} disabled={busy} data-testid="safe-url-clear">
                {safeText('su.clear')}
              </Button>
            )}
          </Group>
        </form>
        {error && (
          <Alert color="red" p="xs" data-testid="safe-url-error">
            {error}
          </Alert>
        )}
        <Text fz="xs" c="dimmed">
          {safeText('su.cliHint')}
        </Text>
      </Stack>

      <Modal opened={moved !== null} onClose={() => moved && go(moved.address)} title={safeText('su.movedTitle')} centered withCloseButton={false} closeOnClickOutside={false}>
        {moved && (
          <Stack gap="sm" data-testid="safe-url-moved">
            <Text fz="sm">{moved.cleared ? safeText('su.clearedText') : safeText('su.movedText')}</Text>
            <Group gap="xs" wrap="nowrap">
              <Anchor href={`${moved.address}#/safe`} fw={600} style={{ wordBreak: 'break-all' }} data-testid="safe-url-new">
                {moved.address}
              </Anchor>
              <CopyBtn text={moved.address} />
            </Group>
            <Text fz="xs" c="dimmed">
              {safeText('su.oldGone')} {safeText('su.goIn', { seconds: Math.max(0, left) })}
            </Text>
            <Group justify="flex-end">
              <Button onClick={() => go(moved.address)} data-testid="safe-url-go">
                {safeText('su.go')}
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </Section>
  );
}
