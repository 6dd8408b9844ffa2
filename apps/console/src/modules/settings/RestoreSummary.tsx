/** What a backup would change, shown before the user confirms the restore. */
import { Alert, Badge, Group, Stack, Table, Text } from '@mantine/core';
import type { BackupSummary } from '@lucky/contracts';
import { SHELL_TABLES, lang, type MessageId } from '../../i18n';
import { summaryIsEmpty, summaryRows } from '../safe/helpers';
import { fmtTime } from '../safe/ui';
import { fieldLabel, systemText } from './system.i18n';

function moduleName(key: string): string {
  const id = `module.${key}` as MessageId;
  return SHELL_TABLES[lang][id] ?? key;
}

export function RestoreSummary(props: { summary: BackupSummary }) {
  const s = props.summary;
  const rows = summaryRows(s);
  return (
    <Stack gap="sm" data-testid="sys-restore-summary">
      <Text fz="sm">{systemText('restoreFrom', { version: s.version, time: fmtTime(s.created) })}</Text>
      <Badge variant="light" color={s.secretsIncluded ? 'orange' : 'gray'}>
        {s.secretsIncluded ? systemText('restoreSecretsIn') : systemText('restoreSecretsOut')}
      </Badge>
      {Object.values(s.stores).some((n) => n > 0) && (
        <Text fz="sm" data-testid="sys-restore-stores">
          {systemText('restoreStores', { certificates: s.stores.certificates ?? 0, accounts: s.stores.acmeAccounts ?? 0 })}
        </Text>
      )}
      {summaryIsEmpty(s) && (
        <Alert color="blue" p="xs" data-testid="sys-restore-nothing">
          {systemText('restoreNothing')}
        </Alert>
      )}
      <div>
        <Text fz="sm" fw={500} mb={4}>
          {systemText('restoreBase')}
        </Text>
        {s.base.length === 0 ? (
          <Text fz="sm" c="dimmed">
            {systemText('restoreBaseNone')}
          </Text>
        ) : (
          <Group gap={6} data-testid="sys-restore-base">
            {s.base.map((f) => (
              <Badge key={f} variant="outline" color="orange" tt="none">
                {fieldLabel(f)}
              </Badge>
            ))}
          </Group>
        )}
      </div>
      {rows.length > 0 && (
        <Table withTableBorder striped verticalSpacing={4} data-testid="sys-restore-modules">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{systemText('restoreModule')}</Table.Th>
              <Table.Th ta="right">{systemText('restoreAdd')}</Table.Th>
              <Table.Th ta="right">{systemText('restoreUpdate')}</Table.Th>
              <Table.Th ta="right">{systemText('restoreRemove')}</Table.Th>
              <Table.Th ta="center">{systemText('restoreSettings')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((r) => (
              <Table.Tr key={r.module} data-testid="sys-restore-module" data-module={r.module}>
                <Table.Td>{moduleName(r.module)}</Table.Td>
                <Table.Td ta="right" c={r.add ? 'green' : 'dimmed'} data-testid="sys-restore-add">
                  {r.add}
                </Table.Td>
                <Table.Td ta="right" c={r.update ? 'blue' : 'dimmed'} data-testid="sys-restore-update">
                  {r.update}
                </Table.Td>
                <Table.Td ta="right" c={r.remove ? 'red' : 'dimmed'} data-testid="sys-restore-remove">
                  {r.remove}
                </Table.Td>
                <Table.Td ta="center">{r.settings ? systemText('restoreSettingsChanged') : systemText('restoreSettingsSame')}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {!summaryIsEmpty(s) && (
        <Text fz="xs" c="orange">
          {systemText('restoreWarn')}
        </Text>
      )}
    </Stack>
  );
}
