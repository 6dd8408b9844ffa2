import { Group, Select, Stack, TextInput } from '@mantine/core';
import type { HttpProxy } from '@lucky/contracts';
import { bindFields } from '../form/bindFields';
import { SecretInput } from '../fields/SecretInput';
import { kitText } from '../texts';

/** The proxy a module's HTTP calls (a task's, a webhook's) go through. */
export function ProxyEditor(props: { value: HttpProxy; onChange: (v: HttpProxy) => void; errorAt: (field: string) => string | undefined; label?: string; testId: string }) {
  const p = props.value;
  const b = bindFields(p, (patch) => props.onChange({ ...p, ...patch }), props.errorAt);
  return (
    <Stack gap="xs">
      <Select
        label={props.label ?? kitText('proxyType')}
        data={(['none', 'http', 'https', 'socks5'] as const).map((v) => ({ value: v, label: kitText(`proxy.${v}`) }))}
        allowDeselect={false}
        {...b.choice('type')}
        data-testid={`${props.testId}-type`}
      />
      {p.type !== 'none' && (
        <>
          <TextInput label={kitText('proxyAddress')} description={kitText('proxyAddressHint')} {...b.text('address')} data-testid={`${props.testId}-address`} />
          <Group grow align="flex-start">
            <TextInput label={kitText('proxyUser')} {...b.text('user')} autoComplete="off" />
            <SecretInput label={kitText('proxyPassword')} value={p.password} onChange={(password) => props.onChange({ ...p, password })} />
          </Group>
        </>
      )}
    </Stack>
  );
}
