/**
 * HTTPS certificates of a listener: each PEM text (pasted or read from a local file), paths on the
 * server, or a certificate of the Certificates module by name; and its domains. A web rule's may
 * also be automatic: ordered for its names by the Certificates module (HTTP-01 or DNS-01).
 */
import { Autocomplete, Button, Group, SegmentedControl, Stack, TagsInput, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { acmeRoutes } from '@lucky/contracts';
import { routeQuery } from '../../api/routeQuery';
import { bindFields } from '../form/bindFields';
import { DnsTaskSelect } from '../fields/DnsTaskSelect';
import { LinesInput } from '../fields/LinesInput';
import { PemInput } from '../fields/PemInput';
import { SegmentedField } from '../fields/SegmentedField';
import { mono } from '../fields/styles';
import { kitText } from '../texts';
import { emptyCert, type CertForm, type CertSource } from './certs';

const PLACEHOLDERS = {
  pem: { cert: '-----BEGIN CERTIFICATE-----', key: '-----BEGIN PRIVATE KEY-----' },
  file: { cert: '/etc/ssl/certs/site.pem', key: '/etc/ssl/private/site.key' },
};

interface EditorProps<S extends CertSource> {
  value: CertForm<S>;
  onChange: (v: CertForm<S>) => void;
  onRemove: () => void;
  /** The sources to choose from: TLS_CERT_SOURCES, or WEB_CERT_SOURCES with `auto`. */
  sources: readonly S[];
  index: number;
  errorAt: (field: string) => string | undefined;
  testPrefix: string;
}

/** One certificate; test ids `<testPrefix>-<index>`, `…-source`, `…-cert`, `…-key`, `…-domains`, `…-challenge`, `…-dnstask`. */
export function CertEditor<S extends CertSource>(props: EditorProps<S>) {
  const c = props.value;
  const set = (patch: Partial<CertForm<S>>) => props.onChange({ ...c, ...patch });
  const b = bindFields(c, set, props.errorAt);
  const tid = `${props.testPrefix}-${props.index}`;
  const label = (field: 'cert' | 'key') =>
    c.source === 'pem' ? kitText(field === 'cert' ? 'certPem' : 'keyPem') : kitText(field === 'cert' ? 'certPath' : 'keyPath');
  return (
    <Stack gap="xs" p="sm" style={{ border: '1px solid var(--mantine-color-gray-3)', borderRadius: 6 }} data-testid={tid}>
      <Group justify="space-between">
        <Text fw={500} fz="sm">
          {kitText('certN', { n: props.index + 1 })}
        </Text>
        <Group gap="xs">
          <SegmentedControl size="xs" data={props.sources.map((v) => ({ value: v, label: kitText(`certSource.${v}`) }))} value={c.source} onChange={(v) => set({ source: v as S })} data-testid={`${tid}-source`} />
          <Button size="xs" variant="subtle" color="red" onClick={props.onRemove}>
            {kitText('remove')}
          </Button>
        </Group>
      </Group>
      {c.source === 'store' && <StoreName value={c.cert} onChange={(cert) => set({ cert, key: '' })} error={props.errorAt('cert')} testId={`${tid}-cert`} />}
      {c.source === 'auto' && <AutoFields value={c} set={set} errorAt={props.errorAt} tid={tid} />}
      {(c.source === 'pem' || c.source === 'file') && (['cert', 'key'] as const).map((field) =>
        c.source === 'pem' ? (
          <PemInput
            key={field}
            label={label(field)}
            uploadLabel={kitText('certUpload')}
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
      <LinesInput
        label={kitText(c.source === 'auto' ? 'certAutoNames' : 'certDomains')}
        description={kitText(c.source === 'auto' ? 'certAutoNamesHint' : 'certDomainsHint')}
        minRows={1}
        maxRows={6}
        {...b.text('domains')}
        data-testid={`${tid}-domains`}
      />
    </Stack>
  );
}

/** An automatic certificate: what it is, how the CA checks its names, and for DNS-01 the DDNS task writing the record. */
function AutoFields<S extends CertSource>(props: { value: CertForm<S>; set: (patch: Partial<CertForm<S>>) => void; errorAt: (field: string) => string | undefined; tid: string }) {
  const c = props.value;
  return (
    <>
      <Text fz="xs" c="dimmed">
        {kitText('certAutoHint')}
      </Text>
      <Group align="flex-start" grow>
        <SegmentedField
          label={kitText('certChallenge')}
          data={['http-01', 'dns-01'].map((v) => ({ value: v, label: v.toUpperCase() }))}
          value={c.challenge}
          onChange={(v) => props.set({ challenge: v as CertForm['challenge'] })}
          data-testid={`${props.tid}-challenge`}
        />
        {c.challenge === 'dns-01' && (
          <DnsTaskSelect label={kitText('certDnsTask')} description={kitText('certDnsTaskHint')} value={c.dnsTask} onChange={(dnsTask) => props.set({ dnsTask })} error={props.errorAt('dnsTask')} testId={`${props.tid}-dnstask`} />
        )}
      </Group>
    </>
  );
}

/** The certificates of the store to choose from (none when the Certificates module is off: the name is typed). */
const storeQuery = () => routeQuery(['acme', 'certificates'] as const, acmeRoutes.certificates, { silent: true, staleTime: 30_000 });

/** The store's names to offer, each option showing the names its certificate is for (choosing it fills in its name only). */
function useStoreChoices() {
  const list = useQuery(storeQuery()).data?.list ?? [];
  return {
    data: list.map((c) => c.name),
    renderOption: ({ option }: { option: { value: string } }) => `${option.value} (${list.find((c) => c.name === option.value)?.names.join(', ') ?? ''})`,
    styles: mono,
  };
}

function StoreName(props: { value: string; onChange: (v: string) => void; error: string | undefined; testId: string }) {
  return (
    <Autocomplete
      label={kitText('certStoreName')}
      description={kitText('certStoreHint')}
      {...useStoreChoices()}
      value={props.value}
      onChange={props.onChange}
      error={props.error}
      data-testid={props.testId}
    />
  );
}

/** Several certificates of the store by name (port forwarding picks one by SNI); a name may be typed before it exists. */
export function StoreNamesInput(props: { value: string[]; onChange: (v: string[]) => void; error: string | undefined; testId: string; description?: string }) {
  return (
    <TagsInput
      label={kitText('certStoreNames')}
      description={props.description ?? kitText('certStoreHint')}
      {...useStoreChoices()}
      value={props.value}
      onChange={props.onChange}
      error={props.error}
      data-testid={props.testId}
    />
  );
}

/**
 * The list: heading, hint, one editor per certificate, the add button (`<testPrefix>-add`).
 * `errorAt` takes a path under the list: `0.cert`.
 */
export function CertListEditor<S extends CertSource>(props: {
  value: CertForm<S>[];
  onChange: (v: CertForm<S>[]) => void;
  sources: readonly S[];
  errorAt: (field: string) => string | undefined;
  testPrefix: string;
  error?: string | undefined;
}) {
  const certs = props.value;
  return (
    <>
      <Text fz="sm" fw={500}>
        {kitText('certs')}
      </Text>
      <Text fz="xs" c="dimmed" mt={-6}>
        {kitText('certsHint')}
      </Text>
      {certs.map((c, i) => (
        <CertEditor
          key={i}
          index={i}
          value={c}
          sources={props.sources}
          onChange={(v) => props.onChange(certs.map((x, j) => (j === i ? v : x)))}
          onRemove={() => props.onChange(certs.filter((_, j) => j !== i))}
          errorAt={(field) => props.errorAt(`${i}.${field}`)}
          testPrefix={props.testPrefix}
        />
      ))}
      {props.error && (
        <Text fz="xs" c="red" data-testid={`${props.testPrefix}-error`}>
          {props.error}
        </Text>
      )}
      <Button variant="light" w="fit-content" onClick={() => props.onChange([...certs, emptyCert(props.sources[0]!)])} data-testid={`${props.testPrefix}-add`}>
        {kitText('certAdd')}
      </Button>
    </>
  );
}
