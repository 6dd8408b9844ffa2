/**
 * Who may reach the console: the WAN switch (the base setting AllowInternetAccess), whitelist and
 * blacklist with notes and expiry, whitelist-only, extra local networks. The daemon refuses a policy
 * that would shut out the caller; its message is shown as it comes.
 */
import { ActionIcon, Alert, Badge, Button, Card, Group, Stack, Switch, Table, Text, TextInput, Textarea } from '@mantine/core';
import { ZAccessPolicy, coreRoutes, safeRoutes, type AccessPolicy } from '@lucky/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { call } from '../../api';
import { pushNotice } from '../../api/notices';
import { lang } from '../../i18n';
import { accessToForm, dateToExpiry, formToAccess, isExpired, type AccessForm, type EntryRow } from './helpers';
import { safeText } from './i18n';
import { ConfirmModal, SectionTitle } from './ui';
import { useSubmit } from './useSubmit';

function EntryList(props: { rows: EntryRow[]; onChange: (rows: EntryRow[]) => void; testid: string }) {
  const set = (i: number, patch: Partial<EntryRow>) => props.onChange(props.rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <Stack gap={6} data-testid={props.testid}>
      {props.rows.length === 0 ? (
        <Text fz="sm" c="dimmed">
          {safeText('ac.empty')}
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={620}>
          <Table verticalSpacing={4} withRowBorders={false}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th w="34%">{safeText('ac.cidr')}</Table.Th>
                <Table.Th>{safeText('ac.note')}</Table.Th>
                <Table.Th w={190}>{safeText('ac.expires')}</Table.Th>
                <Table.Th w={40} />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {props.rows.map((r, i) => (
                <Table.Tr key={i} data-testid={`${props.testid}-row`}>
                  <Table.Td>
                    <TextInput
                      value={r.cidr}
                      placeholder={safeText('ac.cidrPlaceholder')}
                      onChange={(e) => set(i, { cidr: e.currentTarget.value })}
                      aria-label={safeText('ac.cidr')}
                      data-testid={`${props.testid}-cidr`}
                    />
                  </Table.Td>
                  <Table.Td>
                    <TextInput value={r.note} maxLength={128} onChange={(e) => set(i, { note: e.currentTarget.value })} aria-label={safeText('ac.note')} />
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4} wrap="nowrap">
                      <TextInput
                        type="date"
                        value={r.date}
                        title={safeText('ac.expiresHint')}
                        onChange={(e) => set(i, { date: e.currentTarget.value })}
                        aria-label={safeText('ac.expires')}
                        style={{ flex: 1 }}
                      />
                      {r.date && isExpired({ expires: dateToExpiry(r.date) }) && (
                        <Badge color="gray" variant="light" size="sm">
                          {safeText('ac.expired')}
                        </Badge>
                      )}
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    <ActionIcon variant="subtle" color="red" onClick={() => props.onChange(props.rows.filter((_, j) => j !== i))} aria-label={safeText('ac.remove')}>
                      ✕
                    </ActionIcon>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Group>
        <Button size="xs" variant="light" onClick={() => props.onChange([...props.rows, { cidr: '', note: '', date: '' }])} data-testid={`${props.testid}-add`}>
          {safeText('ac.addEntry')}
        </Button>
      </Group>
    </Stack>
  );
}

export function AccessSection(props: { access: AccessPolicy; allowInternetAccess: boolean }) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState<AccessForm>(() => accessToForm(props.access));
  const { error, setError, busy, submit } = useSubmit();
  const [wanBusy, setWanBusy] = useState(false);
  const [confirmWanOff, setConfirmWanOff] = useState(false);
  const serverValue = JSON.stringify(props.access);
  // A fresh answer from the daemon (after a save or a refresh) replaces the form.
  useEffect(() => {
    setForm(accessToForm(JSON.parse(serverValue) as AccessPolicy));
  }, [serverValue]);

  const setWan = async (on: boolean) => {
    setWanBusy(true);
    try {
      await call(coreRoutes.putBaseConfig, { body: { AllowInternetAccess: on } });
      pushNotice(safeText('ac.wanSaved'), 'green');
      await queryClient.invalidateQueries({ queryKey: ['safe', 'overview'] });
      await queryClient.invalidateQueries({ queryKey: ['baseconfigure'] });
    } catch {
      // the client has shown the daemon's message
    } finally {
      setWanBusy(false);
    }
  };

  const save = () =>
    submit(ZAccessPolicy, formToAccess(form), async (policy) => {
      const r = await call(safeRoutes.putAccess, { body: policy }, { silent: true });
      pushNotice(r.msg || safeText('saved'), 'green');
      await queryClient.invalidateQueries({ queryKey: ['safe', 'overview'] });
    });

  return (
    <Stack>
      <Card withBorder>
        <SectionTitle>{safeText('ac.wanTitle')}</SectionTitle>
        <Switch
          label={safeText('ac.wan')}
          description={safeText('ac.wanHint')}
          checked={props.allowInternetAccess}
          disabled={wanBusy}
          // Turning it off is not checked against the caller's address by the daemon: ask first.
          onChange={(e) => (e.currentTarget.checked ? void setWan(true) : setConfirmWanOff(true))}
          data-testid="safe-wan"
        />
        <ConfirmModal
          opened={confirmWanOff}
          title={safeText('ac.wanTitle')}
          color="orange"
          loading={wanBusy}
          onClose={() => setConfirmWanOff(false)}
          onConfirm={() => void setWan(false).then(() => setConfirmWanOff(false))}
          testid="safe-wan-off-confirm"
        >
          {safeText('ac.wanOffConfirm')}
        </ConfirmModal>
      </Card>
      <Card withBorder data-testid="safe-access">
        <SectionTitle
          right={
            <Group gap="xs">
              <Button variant="default" size="xs" onClick={() => (setError(null), setForm(accessToForm(props.access)))}>
                {safeText('cancel')}
              </Button>
              <Button size="xs" onClick={() => void save()} loading={busy} data-testid="safe-access-save">
                {safeText('save')}
              </Button>
            </Group>
          }
        >
          {safeText('ac.policyTitle')}
        </SectionTitle>
        <Stack gap="md">
          <Text fz="xs" c="dimmed">
            {safeText('ac.lockoutNote')}
          </Text>
          {error && (
            <Alert color="red" p="xs" data-testid="safe-access-error" withCloseButton onClose={() => setError(null)}>
              {error}
            </Alert>
          )}
          <Switch
            label={safeText('ac.whitelistOnly')}
            description={safeText('ac.whitelistOnlyHint')}
            checked={form.whitelistOnly}
            onChange={(e) => setForm({ ...form, whitelistOnly: e.currentTarget.checked })}
            data-testid="safe-whitelist-only"
          />
          {(['whitelist', 'blacklist'] as const).map((list) => (
            <div key={list}>
              <Text fw={500} fz="sm">
                {safeText(`ac.${list}`)}
              </Text>
              <Text fz="xs" c="dimmed" mb={4}>
                {safeText(`ac.${list}Hint`)}
              </Text>
              <EntryList rows={form[list]} onChange={(rows) => setForm({ ...form, [list]: rows })} testid={`safe-${list}`} />
            </div>
          ))}
          <Textarea
            label={safeText('ac.localNetworks')}
            description={safeText('ac.localNetworksHint')}
            autosize
            minRows={2}
            value={form.localNetworks}
            onChange={(e) => setForm({ ...form, localNetworks: e.currentTarget.value })}
            data-testid="safe-local-networks"
          />
        </Stack>
      </Card>
    </Stack>
  );
}
