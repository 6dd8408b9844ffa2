/** One HTTPS certificate: PEM text (pasted or read from a local file) or paths on the server, and its domains. */
import { Button, Group, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { bindFields } from '../../kit/form/bindFields';
import { LinesInput } from '../../kit/fields/LinesInput';
import { PemInput } from '../../kit/fields/PemInput';
import { mono } from '../../kit/fields/styles';
import type { CertForm } from './form';
import { webText } from './i18n';

const PLACEHOLDERS = {
  pem: { cert: '-----BEGIN CERTIFICATE-----', key: '-----BEGIN PRIVATE KEY-----' },
  file: { cert: '/etc/ssl/certs/site.pem', key: '/etc/ssl/private/site.key' },
};

export function CertEditor(props: { value: CertForm; onChange: (v: CertForm) => void; onRemove: () => void; index: number; errorAt: (field: string) => string | undefined }) {
  const c = props.value;
  const set = (patch: Partial<CertForm>) => props.onChange({ ...c, ...patch });
  const b = bindFields(c, set, props.errorAt);
  const tid = `web-cert-${props.index}`;
  const label = (field: 'cert' | 'key') =>
    c.source === 'pem' ? webText(field === 'cert' ? 'certPem' : 'keyPem') : webText(field === 'cert' ? 'certPath' : 'keyPath');
  return (
    <Stack gap="xs" p="sm" style={{ border: '1px solid var(--mantine-color-gray-3)', borderRadius: 6 }} data-testid={tid}>
      <Group justify="space-between">
        <Text fw={500} fz="sm">
          {webText('certN', { n: props.index + 1 })}
        </Text>
        <Group gap="xs">
          <SegmentedControl size="xs" data={(['pem', 'file'] as const).map((v) => ({ value: v, label: webText(`certSource.${v}`) }))} {...b.choice('source')} />
          <Button size="xs" variant="subtle" color="red" onClick={props.onRemove}>
            {webText('remove')}
          </Button>
        </Group>
      </Group>
      {(['cert', 'key'] as const).map((field) =>
        c.source === 'pem' ? (
          <PemInput
            key={field}
            label={label(field)}
            uploadLabel={webText('certUpload')}
            placeholder={PLACEHOLDERS.pem[field]}
            value={c[field]}
            onValue={(pem) => set({ [field]: pem })}
            error={props.errorAt(field)}
            testId={`${tid}-${field}`}
          />
        ) : (
          <TextInput key={field} label={label(field)} placeholder={PLACEHOLDERS.file[field]} {...b.text(field)} styles={mono} data-testid={`${tid}-${field}`} />
        ),
      )}
      <LinesInput label={webText('certDomains')} description={webText('certDomainsHint')} minRows={1} maxRows={6} {...b.text('domains')} />
    </Stack>
  );
}
