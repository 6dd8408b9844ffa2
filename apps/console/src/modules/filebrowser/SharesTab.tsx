/** The share links: what each shares, its link, expiry, password, downloads, a switch, and revoke (asked first). */
import { Badge, Button, CopyButton, Group, Modal, Switch, Table, Text, Tooltip, UnstyledButton } from '@mantine/core';
import type { FbShareView } from '@lucky/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { fbText } from './i18n';
import { fb, fbKeys, sharesQuery, storagesQuery } from './queries';

export function SharesTab() {
  const qc = useQueryClient();
  const shares = useQuery(sharesQuery());
  const storages = useQuery(storagesQuery());
  const [revoking, setRevoking] = useState<FbShareView | null>(null);
  const refresh = () => void qc.invalidateQueries({ queryKey: fbKeys.shares });
  const toggle = useMutation({ mutationFn: (v: { key: string; enable: boolean }) => fb.enableShare(v.key, v.enable), onSettled: refresh });
  const revoke = useMutation({ mutationFn: (key: string) => fb.revokeShare(key), onSuccess: () => setRevoking(null), onSettled: refresh });
  const rows = shares.data?.list ?? [];
  const storageName = (k: string) => storages.data?.list.find((s) => s.key === k)?.name ?? k;
  if (shares.isSuccess && rows.length === 0) {
    return (
      <Text c="dimmed" data-testid="fb-shares-empty">
        {fbText('sharesEmpty')}
      </Text>
    );
  }
  return (
    <>
      <Table data-testid="fb-shares">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{fbText('colShare')}</Table.Th>
            <Table.Th>{fbText('colTarget')}</Table.Th>
            <Table.Th>{fbText('colLink')}</Table.Th>
            <Table.Th>{fbText('colExpires')}</Table.Th>
            <Table.Th>{fbText('colDownloads')}</Table.Th>
            <Table.Th>{fbText('colState')}</Table.Th>
            <Table.Th />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((s) => {
            const url = new URL(s.url, document.baseURI).toString();
            const state = !s.enable ? 'off' : s.expired ? 'expired' : s.target === 'missing' ? 'missing' : 'active';
            return (
              <Table.Tr key={s.key} data-testid="fb-share-row" data-name={s.name} data-state={state}>
                <Table.Td>
                  <Text fz="sm" fw={600}>
                    {s.name}
                  </Text>
                  {s.hasPassword && (
                    <Badge size="xs" variant="light" tt="none">
                      {fbText('hasPassword')}
                    </Badge>
                  )}
                </Table.Td>
                <Table.Td fz="xs" style={{ wordBreak: 'break-all' }}>
                  {storageName(s.storage)}: {s.path}
                </Table.Td>
                <Table.Td maw={280}>
                  <CopyButton value={url}>
                    {({ copied, copy }) => (
                      <Tooltip label={copied ? fbText('shareCopied') : fbText('shareCopy')} withArrow>
                        <UnstyledButton onClick={copy} fz="xs" ff="monospace" style={{ wordBreak: 'break-all' }} data-testid="fb-share-link" data-url={url}>
                          {url}
                        </UnstyledButton>
                      </Tooltip>
                    )}
                  </CopyButton>
                </Table.Td>
                <Table.Td fz="xs">{s.expires === null ? fbText('never') : new Date(s.expires).toLocaleString()}</Table.Td>
                <Table.Td fz="sm">{s.downloads}</Table.Td>
                <Table.Td>
                  <Badge color={state === 'active' ? 'teal' : state === 'off' ? 'gray' : 'red'} variant="light" tt="none" data-testid="fb-share-state">
                    {fbText(state)}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  <Group gap="xs" wrap="nowrap">
                    <Switch size="xs" checked={s.enable} onChange={(e) => toggle.mutate({ key: s.key, enable: e.currentTarget.checked })} aria-label={fbText('enableShare')} data-testid="fb-share-toggle" />
                    <Button size="compact-xs" color="red" variant="light" onClick={() => setRevoking(s)} data-testid="fb-share-revoke">
                      {fbText('revoke')}
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
      {revoking && (
        <Modal opened onClose={() => setRevoking(null)} title={fbText('revokeTitle')} data-testid="fb-revoke-dialog">
          <Text>{fbText('revokeConfirm', { name: revoking.name })}</Text>
          <Group justify="flex-end" mt="md">
            <Button variant="default" onClick={() => setRevoking(null)}>
              {fbText('cancel')}
            </Button>
            <Button color="red" loading={revoke.isPending} onClick={() => revoke.mutate(revoking.key)} data-testid="fb-revoke-confirm">
              {fbText('revoke')}
            </Button>
          </Group>
        </Modal>
      )}
    </>
  );
}
