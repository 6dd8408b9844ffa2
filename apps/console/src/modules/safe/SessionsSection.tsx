/** Console sessions: address, client, last seen; this one marked; end one, or all others. */
import { Badge, Button, Group, Table } from '@mantine/core';
import { safeRoutes } from '@lucky/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { call } from '../../api';
import { pushNotice } from '../../api/notices';
import { safeText } from './i18n';
import { sessionsQuery } from './queries';
import { ConfirmModal, Listing, RefreshButton, Section, SessionCells } from './ui';
import { ScrolledTable } from '../../kit/table/ScrolledTable';

export function SessionsSection() {
  const queryClient = useQueryClient();
  const sessions = useQuery(sessionsQuery());
  const [confirmOthers, setConfirmOthers] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['safe', 'sessions'] });

  const revoke = async (id: string) => {
    setBusy(id);
    try {
      await call(safeRoutes.revokeSession, { params: { id } });
      pushNotice(safeText('se.revoked'), 'green');
      await refresh();
    } catch {
      // shown by the client
    } finally {
      setBusy(null);
    }
  };

  const revokeOthers = async () => {
    setBusy('others');
    try {
      const r = await call(safeRoutes.revokeOtherSessions, {});
      pushNotice(safeText('se.revokedN', { n: r.revoked }), 'green');
      await refresh();
    } catch {
      // shown by the client
    } finally {
      setBusy(null);
      setConfirmOthers(false);
    }
  };

  // This session first, then the most recently active.
  const list = [...(sessions.data?.list ?? [])].sort((a, b) => Number(b.current) - Number(a.current) || b.lastSeen - a.lastSeen);
  const others = list.filter((s) => !s.current).length;

  return (
    <Section
      testid="safe-sessions"
      title={safeText('tab.sessions')}
      right={
        <Group gap="xs">
          <RefreshButton onClick={() => void sessions.refetch()} loading={sessions.isFetching && !sessions.isPending} />
          <Button size="xs" color="red" variant="light" disabled={others === 0} onClick={() => setConfirmOthers(true)} data-testid="safe-sessions-revoke-others">
            {safeText('se.revokeOthers')}
          </Button>
        </Group>
      }
      intro={safeText('se.intro')}
    >
      <Listing pending={sessions.isPending} empty={list.length === 0} skeletonH={80} emptyText={safeText('se.empty')}>
        <ScrolledTable minWidth={760} striped data-testid="safe-sessions-table" titles={[safeText('se.address'), safeText('se.agent'), safeText('se.created'), safeText('se.lastSeen'), safeText('se.expires'), '']}>
          {list.map((s) => (
            <Table.Tr key={s.id} data-testid="safe-session-row" data-current={s.current}>
              <SessionCells session={s} />
              <Table.Td>
                {s.current ? (
                  <Badge color="green" variant="light" data-testid="safe-session-current">
                    {safeText('se.current')}
                  </Badge>
                ) : (
                  <Button size="xs" color="red" variant="subtle" loading={busy === s.id} onClick={() => void revoke(s.id)} data-testid="safe-session-revoke">
                    {safeText('se.revoke')}
                  </Button>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </ScrolledTable>
      </Listing>
      <ConfirmModal
        opened={confirmOthers}
        title={safeText('se.revokeOthers')}
        loading={busy === 'others'}
        onClose={() => setConfirmOthers(false)}
        onConfirm={() => void revokeOthers()}
        testid="safe-sessions-revoke-others-confirm"
      >
        {safeText('se.revokeOthersConfirm')}
      </ConfirmModal>
    </Section>
  );
}
