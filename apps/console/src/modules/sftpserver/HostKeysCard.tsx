/**
 * The SFTP server's host keys under its rules: type and SHA256 fingerprint of each, as a client
 * shows them on its first connection, with the public key line to copy (for known_hosts).
 */
import { Alert, Button, CopyButton, Skeleton, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { ScrolledTable } from '../../kit/table/ScrolledTable';
import { TitledCard } from '../../shell/TitledCard';
import { sftpText as t } from './i18n';
import { hostKeysQuery } from './queries';

const mono = { fontFamily: 'monospace', wordBreak: 'break-all' } as const;

export function HostKeysCard() {
  const q = useQuery(hostKeysQuery());
  const keys = q.data?.keys ?? [];
  return (
    <TitledCard title={t('hostKeys')} data-testid="sftp-hostkeys">
      <Text fz="xs" c="dimmed" mb="xs">
        {t('hostKeysHint')}
      </Text>
      {q.isPending ? (
        <Skeleton h={60} />
      ) : q.isError && keys.length === 0 ? (
        <Alert color="red" p="xs" data-testid="sftp-hostkeys-error">
          {q.error.message}
        </Alert>
      ) : keys.length === 0 ? (
        <Text fz="sm" c="dimmed" ta="center" p="xs" data-testid="sftp-hostkeys-empty">
          {t('hostKeysNone')}
        </Text>
      ) : (
        <ScrolledTable minWidth={640} striped verticalSpacing="xs" titles={[t('hostKeyType'), t('hostKeyFingerprint'), '']} data-testid="sftp-hostkeys-table">
          {keys.map((k) => (
            <Table.Tr key={k.publicKey} data-testid="sftp-hostkey" data-type={k.type} data-fingerprint={k.fingerprint}>
              <Table.Td fz="sm" style={{ whiteSpace: 'nowrap' }} data-testid="sftp-hostkey-type">
                {k.type}
              </Table.Td>
              <Table.Td fz="sm" style={mono} data-testid="sftp-hostkey-fingerprint">
                {k.fingerprint}
              </Table.Td>
              <Table.Td w={1}>
                <CopyButton value={k.publicKey}>
                  {({ copied, copy }) => (
                    <Button size="xs" variant={copied ? 'filled' : 'light'} color={copied ? 'teal' : undefined} onClick={copy} style={{ whiteSpace: 'nowrap' }} data-testid="sftp-hostkey-copy">
                      {copied ? t('hostKeyCopied') : t('hostKeyCopy')}
                    </Button>
                  )}
                </CopyButton>
              </Table.Td>
            </Table.Tr>
          ))}
        </ScrolledTable>
      )}
    </TitledCard>
  );
}
