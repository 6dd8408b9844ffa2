/** Login protection: lockout settings, and the addresses with failed logins with a clear button. */
import { Alert, Badge, Button, Card, Group, NumberInput, SimpleGrid, Skeleton, Stack, Table, Text } from '@mantine/core';
import { ZLoginProtection, formatIssues, safeRoutes, type LoginProtection } from '@lucky/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { ApiError, call } from '../../api';
import { pushNotice } from '../../api/notices';
import { lang } from '../../i18n';
import { safeText } from './i18n';
import { lockoutsQuery } from './queries';
import { ConfirmModal, SectionTitle, fmtTime } from './ui';
import { TableHead } from '../../kit/table/TableHead';

type Form = Record<keyof LoginProtection, number | string>;
const num = (v: number | string) => (typeof v === 'number' ? v : Number.NaN);

export function LoginSection(props: { settings: LoginProtection }) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState<Form>(props.settings);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [clearing, setClearing] = useState(false);
  const locks = useQuery({ ...lockoutsQuery(), refetchInterval: 5000 });
  const serverValue = JSON.stringify(props.settings);
  useEffect(() => setForm(JSON.parse(serverValue) as LoginProtection), [serverValue]);

  const save = async () => {
    setError(null);
    const value = {
      freeFailures: num(form.freeFailures),
      baseLockSeconds: num(form.baseLockSeconds),
      maxLockSeconds: num(form.maxLockSeconds),
      globalFailuresPerMinute: num(form.globalFailuresPerMinute),
    };
    const checked = ZLoginProtection.safeParse(value);
    if (!checked.success) {
      setError(formatIssues(ZLoginProtection, value, lang));
      return;
    }
    if (checked.data.maxLockSeconds < checked.data.baseLockSeconds) {
      setError(safeText('lp.maxBelowBase'));
      return;
    }
    setBusy(true);
    try {
      const r = await call(safeRoutes.putLoginProtection, { body: checked.data }, { silent: true });
      pushNotice(r.msg || safeText('saved'), 'green');
      await queryClient.invalidateQueries({ queryKey: ['safe', 'overview'] });
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  const clear = async () => {
    try {
      await call(safeRoutes.clearLockouts, {});
      pushNotice(safeText('lp.cleared'), 'green');
      await queryClient.invalidateQueries({ queryKey: ['safe', 'lockouts'] });
    } catch {
      // shown by the client
    } finally {
      setClearing(false);
    }
  };

  const field = (k: keyof LoginProtection, label: string, min: number, max: number, description?: string) => (
    <NumberInput
      clampBehavior="none"
      allowDecimal={false}
      label={label}
      description={description}
      min={min}
      max={max}
      value={form[k]}
      onChange={(v) => setForm({ ...form, [k]: v })}
      data-testid={`safe-lp-${k}`}
    />
  );

  const list = locks.data?.list ?? [];
  const now = Date.now();
  return (
    <Stack>
      <Card withBorder data-testid="safe-login-protection">
        <SectionTitle
          right={
            <Button size="xs" onClick={() => void save()} loading={busy} data-testid="safe-lp-save">
              {safeText('save')}
            </Button>
          }
        >
          {safeText('lp.title')}
        </SectionTitle>
        <Text fz="sm" c="dimmed" mb="sm">
          {safeText('lp.intro')}
        </Text>
        {error && (
          <Alert color="red" p="xs" mb="sm" data-testid="safe-lp-error">
            {error}
          </Alert>
        )}
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          {field('freeFailures', safeText('lp.freeFailures'), 1, 100)}
          {field('globalFailuresPerMinute', safeText('lp.global'), 1, 10000, safeText('lp.globalHint'))}
          {field('baseLockSeconds', safeText('lp.baseLock'), 1, 86400)}
          {field('maxLockSeconds', safeText('lp.maxLock'), 1, 7 * 86400)}
        </SimpleGrid>
      </Card>
      <Card withBorder data-testid="safe-lockouts">
        <SectionTitle
          right={
            <Group gap="xs">
              <Button size="xs" variant="default" onClick={() => void locks.refetch()} loading={locks.isFetching && !locks.isPending}>
                {safeText('refresh')}
              </Button>
              <Button size="xs" color="red" variant="light" disabled={list.length === 0} onClick={() => setClearing(true)} data-testid="safe-lockouts-clear">
                {safeText('lp.clear')}
              </Button>
            </Group>
          }
        >
          {safeText('lp.locksTitle')}
        </SectionTitle>
        {locks.isPending ? (
          <Skeleton h={60} />
        ) : list.length === 0 ? (
          <Text fz="sm" c="dimmed" data-testid="safe-lockouts-empty">
            {safeText('lp.noLocks')}
          </Text>
        ) : (
          <Table.ScrollContainer minWidth={480}>
            <Table striped>
              <TableHead titles={[safeText('lp.address'), safeText('lp.failures'), safeText('lp.lockedUntil')]} />
              <Table.Tbody>
                {list.map((l) => (
                  <Table.Tr key={l.address} data-testid="safe-lockout-row">
                    <Table.Td style={{ fontFamily: 'monospace' }}>{l.address}</Table.Td>
                    <Table.Td>{l.failures}</Table.Td>
                    <Table.Td>
                      {l.lockedUntil > now ? (
                        <Badge color="red" variant="light">
                          {fmtTime(l.lockedUntil)}
                        </Badge>
                      ) : (
                        <Text fz="sm" c="dimmed">
                          {safeText('lp.notLocked')}
                        </Text>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Card>
      <ConfirmModal opened={clearing} title={safeText('lp.clear')} onClose={() => setClearing(false)} onConfirm={() => void clear()} testid="safe-lockouts-clear-confirm">
        {safeText('lp.clearConfirm')}
      </ConfirmModal>
    </Stack>
  );
}
