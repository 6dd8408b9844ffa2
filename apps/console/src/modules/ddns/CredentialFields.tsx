/** A provider's credential fields, as its description lists them: secrets masked, choices as a select, hints under the field. */
import { Select, SimpleGrid, TextInput } from '@mantine/core';
import type { DdnsCredentials, DdnsProviderListing } from '@lucky/contracts';
import { SecretInput } from '../../kit/fields/SecretInput';

export function CredentialFields(props: {
  fields: DdnsProviderListing['fields'];
  value: DdnsCredentials;
  onChange: (c: DdnsCredentials) => void;
  errorAt: (field: string) => string | undefined;
}) {
  const { fields, value } = props;
  if (fields.length === 0) return null;
  const set = (key: string, v: string) => props.onChange({ ...value, [key]: v });
  return (
    <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs" verticalSpacing="xs">
      {fields.map((f) => {
        const common = { label: f.label, error: props.errorAt(`credentials.${f.key}`) };
        if (f.secret) return <SecretInput key={f.key} {...common} hint={f.hint} value={value[f.key]} onChange={(v) => set(f.key, v)} testId={`ddns-cred-${f.key}`} />;
        if (f.options) {
          return (
            <Select
              key={f.key}
              {...common}
              description={f.hint}
              data={f.options}
              value={value[f.key]}
              allowDeselect={f.optional}
              onChange={(v) => set(f.key, v ?? '')}
              data-testid={`ddns-cred-${f.key}`}
            />
          );
        }
        return (
          <TextInput
            key={f.key}
            {...common}
            description={f.hint}
            placeholder={f.placeholder}
            value={value[f.key]}
            onChange={(e) => set(f.key, e.currentTarget.value)}
            autoComplete="off"
            data-testid={`ddns-cred-${f.key}`}
          />
        );
      })}
    </SimpleGrid>
  );
}
