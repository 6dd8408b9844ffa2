/**
 * Login protection: lockout settings with the allow list (never locked), and the addresses with
 * failed logins, each liftable, with a clear button.
 */
import { Badge, Button, Group, NumberInput, SimpleGrid, Stack, Table, Text, Textarea } from '@mantine/core';
import { ZLoginProtection, safeRoutes, type LoginProtection } from '@lucky/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { call } from '../../api';
import { pushNotice } from '../../api/notices';
import { lang } from '../../i18n';
import { safeText } from './i18n';
import { lockoutsQuery } from './queries';
import { ConfirmModal, Listing, RefreshButton, Section, SettingsSection, fmtTime } from './ui';
import { useSubmit } from './useSubmit';
import { ScrolledTable } from '../../kit/table/ScrolledTable';
import { lines } from '../../lib/helpers';

type NumberKey = Exclude<keyof LoginProtection, 'allowList'>;
/** The numbers as typed; the allow list one address or network a line. */
type Form = Record<NumberKey, number | string> & { allowList: string };
const num = (v: number | string) => (typeof v === 'number' ? v : Number.NaN);
const toForm = (s: LoginProtection): Form => ({ ...s, allowList: s.allowList.join('\n') });

export function LoginSection(props: { settings: LoginProtection }) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState<Form>(() => toForm(props.settings));
  const { error, setError, busy, submit } = useSubmit();
  const [clearing, setClearing] = useState(false);
  const locks = useQuery({ ...lockoutsQuery(), refetchInterval: 5000 });
  const serverValue = JSON.stringify(props.settings);
  useEffect(() => setForm(toForm(JSON.parse(serverValue) as LoginProtection)), [serverValue]);

  const save = () => {
    const value = {
      freeFailures: num(form.freeFailures),
      baseLockSeconds: num(form.baseLockSeconds),
      maxLockSeconds: num(form.maxLockSeconds),
      globalFailuresPerMinute: num(form.globalFailuresPerMinute),
      allowList: lines(form.allowList).map((l) => l.trim()),
    };
    const refuse = (v: LoginProtection) => (v.maxLockSeconds < v.baseLockSeconds ? safeText('lp.maxBelowBase') : null);
    return submit(
      ZLoginProtection,
      value,
      async (checked) => {
        const r = await call(safeRoutes.putLoginProtection, { body: checked }, { silent: true });
        pushNotice(r.msg || safeText('saved'), 'green');
        await queryClient.invalidateQueries({ queryKey: ['safe', 'overview'] });
      },
      refuse,
    );
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

  const lift = async (address: string) => {
    try {
      await call(safeRoutes.liftLockout, { params: { address } });
      pushNotice(safeText('lp.lifted', { address }), 'green');
      await queryClient.invalidateQueries({ queryKey: ['safe', 'lockouts'] });
    } catch {
      // shown by the client
    }
  };

  const field = (k: NumberKey, label: string, min: number, max: number, description?: string) => (
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
      <SettingsSection testid="safe-login-protection" prefix="safe-lp" texts="lp" onSave={() => void save()} busy={busy} error={error}>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          {field('freeFailures', safeText('lp.freeFailures'), 1, 100)}
          {field('globalFailuresPerMinute', safeText('lp.global'), 1, 10000, safeText('lp.globalHint'))}
          {field('baseLockSeconds', safeText('lp.baseLock'), 1, 86400)}
          {field('maxLockSeconds', safeText('lp.maxLock'), 1, 7 * 86400)}
        </SimpleGrid>
        <Textarea
          mt="sm"
          autosize
          minRows={2}
          label={safeText('lp.allowList')}
          description={safeText('lp.allowListHint')}
          placeholder={'192.168.1.0/24\n10.0.0.5'}
          value={form.allowList}
          onChange={(e) => setForm({ ...form, allowList: e.currentTarget.value })}
          styles={{ input: { fontFamily: 'monospace' } }}
          data-testid="safe-lp-allowList"
        />
      </SettingsSection>
      <Section
        testid="safe-lockouts"
        title={safeText('lp.locksTitle')}
        right={
          <Group gap="xs">
            <RefreshButton onClick={() => void locks.refetch()} loading={locks.isFetching && !locks.isPending} />
            <Button size="xs" color="red" variant="light" disabled={list.length === 0} onClick={() => setClearing(true)} data-testid="safe-lockouts-clear">
              {safeText('lp.clear')}
            </Button>
          </Group>
        }
      >
        <Listing pending={locks.isPending} empty={list.length === 0} skeletonH={60} emptyText={safeText('lp.noLocks')} emptyTestId="safe-lockouts-empty">
          <ScrolledTable minWidth={480} striped titles={[safeText('lp.address'), safeText('lp.failures'), safeText('lp.lockedUntil'), '']}>
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
                <Table.Td>
                  <Button size="compact-xs" variant="subtle" onClick={() => void lift(l.address)} data-testid="safe-lockout-lift">
                    {safeText('lp.lift')}
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </ScrolledTable>
        </Listing>
      </Section>
      <ConfirmModal opened={clearing} title={safeText('lp.clear')} onClose={() => setClearing(false)} onConfirm={() => void clear()} testid="safe-lockouts-clear-confirm">
        {safeText('lp.clearConfirm')}
      </ConfirmModal>
    </Stack>
  );
}
