/**
 * The portal's live sessions under its users: who, from where, with what, since when, until when;
 * "End" signs that browser out (its next request asks for the login again). Asked again every 10 s
 * while shown, so sign-ins and ends elsewhere appear by themselves.
 */
import { Button, Skeleton, Table, Text } from '@mantine/core';
import { portalRoutes, type PortalSession } from '@lucky/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call } from '../../api';
import { pushNotice } from '../../api/notices';
import { ScrolledTable } from '../../kit/table/ScrolledTable';
import { TitledCard } from '../../shell/TitledCard';
import { SessionCells } from '../safe/ui';
import { portalText as t } from './i18n';
import { portalQueries, portalSessionsQuery } from './queries';

/** Ends one session, then reads the sessions and the users' counts again. */
function useEndSession() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => call(portalRoutes.revokeSession, { params: { id } }),
    onSuccess: (r) => pushNotice(r.msg, 'green'),
    // Ended or already gone (expired meanwhile): either way the list is read again.
    onSettled: () => queryClient.invalidateQueries({ queryKey: portalQueries.keys.all }),
  });
}

export function SessionsCard() {
  const sessions = useQuery(portalSessionsQuery());
  const end = useEndSession();
  const list = sessions.data?.list ?? [];
  return (
    <TitledCard title={t('sessions')} data-testid="portal-sessions">
      <Text fz="xs" c="dimmed" mb="xs">
        {t('sessionsHint')}
      </Text>
      {sessions.isPending ? (
        <Skeleton h={80} />
      ) : list.length === 0 ? (
        <Text fz="sm" c="dimmed" ta="center" p="xs" data-testid="portal-sessions-empty">
          {t('sessionsEmpty')}
        </Text>
      ) : (
        <ScrolledTable
          minWidth={820}
          striped
          verticalSpacing="xs"
          titles={[t('se.user'), t('se.address'), t('se.agent'), t('se.created'), t('se.lastSeen'), t('se.expires'), '']}
          data-testid="portal-sessions-table"
        >
          {list.map((s) => (
            <SessionRow key={s.id} session={s} ending={end.isPending && end.variables === s.id} onEnd={() => end.mutate(s.id)} />
          ))}
        </ScrolledTable>
      )}
    </TitledCard>
  );
}

function SessionRow({ session: s, ending, onEnd }: { session: PortalSession; ending: boolean; onEnd: () => void }) {
  return (
    <Table.Tr data-testid="portal-session-row" data-id={s.id} data-user={s.user}>
      <Table.Td fz="sm" fw={500}>
        {s.user}
      </Table.Td>
      <SessionCells session={s} />
      <Table.Td>
        <Button size="xs" color="red" variant="subtle" loading={ending} onClick={onEnd} data-testid="portal-session-end">
          {t('se.end')}
        </Button>
      </Table.Td>
    </Table.Tr>
  );
}
