/** API tokens: create (name + scope; the token is shown once), list, revoke. */
import { Alert, Badge, Button, Code, Group, Modal, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { safeRoutes, type ApiToken } from '@lucky/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { call } from '../../api';
import { pushNotice } from '../../api/notices';
import { lang } from '../../i18n';
import { safeText } from './i18n';
import { tokensQuery } from './queries';
import { ConfirmModal, CopyBtn, Listing, Section, fmtTime } from './ui';
import { useSubmit } from './useSubmit';
import { ScrolledTable } from '../../kit/table/ScrolledTable';

type Scope = ApiToken['scope'];

export function TokensSection() {
  const queryClient = useQueryClient();
  const tokens = useQuery(tokensQuery());
  const [name, setName] = useState('');
  const [scope, setScope] = useState<Scope>('read');
  const { error, busy, submit } = useSubmit();
  const [created, setCreated] = useState<{ token: string; info: ApiToken } | null>(null);
  const [revoking, setRevoking] = useState<ApiToken | null>(null);
  const [revokeBusy, setRevokeBusy] = useState(false);

  const create = () =>
    submit(safeRoutes.createToken.body, { name, scope }, async (body) => {
      const r = await call(safeRoutes.createToken, { body }, { silent: true });
      setCreated({ token: r.token, info: r.info });
      setName('');
      await queryClient.invalidateQueries({ queryKey: ['safe', 'tokens'] });
    });

  const revoke = async (t: ApiToken) => {
    setRevokeBusy(true);
    try {
      await call(safeRoutes.revokeToken, { params: { id: t.id } });
      pushNotice(safeText('tk.revoked'), 'green');
      await queryClient.invalidateQueries({ queryKey: ['safe', 'tokens'] });
    } catch {
      // shown by the client
    } finally {
      setRevokeBusy(false);
      setRevoking(null);
    }
  };

  const list = tokens.data?.list ?? [];
  const scopeData = (['read', 'full'] as const).map((s) => ({ value: s, label: safeText(`tk.scope.${s}`) }));

  return (
    <Section testid="safe-tokens" title={safeText('tab.tokens')} intro={safeText('tk.intro')}>
      <Stack gap="sm">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void create();
          }}
          noValidate
        >
          <Group align="flex-end" gap="xs">
            <TextInput
              label={safeText('tk.name')}
              placeholder={safeText('tk.namePlaceholder')}
              maxLength={64}
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              style={{ flex: 1, maxWidth: 320 }}
              data-testid="safe-token-name"
            />
            <Select
              label={safeText('tk.scope')}
              data={scopeData}
              value={scope}
              onChange={(v) => v && setScope(v as Scope)}
              allowDeselect={false}
              w={140}
              data-testid="safe-token-scope"
            />
            <Button type="submit" loading={busy} data-testid="safe-token-create">
              {safeText('tk.create')}
            </Button>
          </Group>
        </form>
        {error && (
          <Alert color="red" p="xs" data-testid="safe-token-error">
            {error}
          </Alert>
        )}
        <Listing pending={tokens.isPending} empty={list.length === 0} skeletonH={80} emptyText={safeText('tk.empty')} emptyTestId="safe-tokens-empty" centered>
          <ScrolledTable minWidth={700} striped highlightOnHover data-testid="safe-tokens-table" titles={(['tk.name', 'tk.scope', 'tk.prefix', 'tk.created', 'tk.lastUsed', 'tk.actions'] as const).map((id) => safeText(id))}>
            {list.map((t) => (
              <Table.Tr key={t.id} data-testid="safe-token-row" data-id={t.id}>
                <Table.Td fw={500}>{t.name}</Table.Td>
                <Table.Td>
                  <Badge variant="light" color={t.scope === 'full' ? 'orange' : 'blue'}>
                    {safeText(`tk.scope.${t.scope}`)}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  <Code>{t.prefix}…</Code>
                </Table.Td>
                <Table.Td fz="sm">{fmtTime(t.created)}</Table.Td>
                <Table.Td fz="sm" data-testid="safe-token-lastused">
                  {fmtTime(t.lastUsed)}
                </Table.Td>
                <Table.Td>
                  <Button size="xs" color="red" variant="light" onClick={() => setRevoking(t)} data-testid="safe-token-revoke">
                    {safeText('tk.revoke')}
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </ScrolledTable>
        </Listing>
      </Stack>

      <Modal opened={created !== null} onClose={() => setCreated(null)} title={safeText('tk.createdTitle')} size="lg" closeOnClickOutside={false}>
        {created && (
          <Stack gap="sm">
            <Alert color="orange" p="xs">
              {safeText('tk.shownOnce')}
            </Alert>
            <Group gap="xs" wrap="nowrap">
              <Code block fz="sm" style={{ flex: 1, wordBreak: 'break-all', whiteSpace: 'pre-wrap' }} data-testid="safe-token-value">
                {created.token}
              </Code>
              <CopyBtn text={created.token} testid="safe-token-copy" />
            </Group>
            <Group justify="flex-end">
              <Button onClick={() => setCreated(null)} data-testid="safe-token-done">
                {safeText('close')}
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>
      <ConfirmModal
        opened={revoking !== null}
        title={safeText('tk.revoke')}
        confirmLabel={safeText('tk.revoke')}
        loading={revokeBusy}
        onClose={() => setRevoking(null)}
        onConfirm={() => revoking && void revoke(revoking)}
        testid="safe-token-revoke-confirm"
      >
        {safeText('tk.revokeConfirm', { name: revoking?.name ?? '' })}
      </ConfirmModal>
    </Section>
  );
}
