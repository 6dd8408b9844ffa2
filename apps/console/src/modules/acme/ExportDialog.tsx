/** Export of a certificate with its key: the format (PEM files or a PFX under a password), then the browser saves the file. */
import { Alert, Button, Group, Modal, PasswordInput, Radio, Stack } from '@mantine/core';
import { acmeRoutes, ZAcmeExport, ZAcmeExportFormat, type AcmeExportFormat } from '@lucky/contracts';
import { useState } from 'react';
import { pushNotice } from '../../api/notices';
import { downloadFile } from '../safe/transfer';
import { acmeText } from './i18n';

export function ExportDialog(props: { rule: { key: string; name: string }; onClose: () => void }) {
  const [format, setFormat] = useState<AcmeExportFormat>('fullchain');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const body = { format, password: format === 'pfx' ? password : '' };
  const passwordMissing = !ZAcmeExport.safeParse(body).success;
  const save = async () => {
    setBusy(true);
    setError(null);
    try {
      const name = await downloadFile(acmeRoutes.export, { params: { key: props.rule.key }, body }, `${props.rule.name}.pem`);
      pushNotice(acmeText('exportDone', { name }), 'green');
      props.onClose();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal opened onClose={props.onClose} title={acmeText('exportTitle', { name: props.rule.name })} data-testid="acme-export-dialog">
      <Stack gap="sm">
        <Radio.Group label={acmeText('exportFormat')} value={format} onChange={(v) => setFormat(v as AcmeExportFormat)}>
          <Stack gap={6} mt={6}>
            {ZAcmeExportFormat.options.map((f) => (
              <Radio key={f} value={f} label={acmeText(`format.${f}`)} data-testid={`acme-export-${f}`} />
            ))}
          </Stack>
        </Radio.Group>
        {format === 'pfx' && (
          <PasswordInput label={acmeText('exportPassword')} description={acmeText('exportPasswordHint')} value={password} onChange={(e) => setPassword(e.currentTarget.value)} data-testid="acme-export-password" />
        )}
        {format !== 'fullchain' && <Alert color="yellow">{acmeText('exportKeyWarning')}</Alert>}
        {error && (
          <Alert color="red" data-testid="acme-export-error">
            {error}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button onClick={() => void save()} loading={busy} disabled={passwordMissing} data-testid="acme-export-save">
            {acmeText('exportDownload')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
