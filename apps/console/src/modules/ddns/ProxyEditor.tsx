import { Group, Select, Stack, TextInput } from '@mantine/core';
import type { DdnsProxy } from '@lucky/contracts';
import { bindFields } from '../../kit/form/bindFields';
import { ddnsText } from './i18n';
import { SecretInput } from './SecretInput';

/** The proxy a task's (or a webhook's) HTTP calls go through. */
export function ProxyEditor(props: { value: DdnsProxy; onChange: (v: DdnsProxy) => void; errorAt: (field: string) => string | undefined; label?: string; testId: string }) {
  const p = props.value;
  const b = bindFields(p, (patch) => props.onChange({ ...p, ...patch }), props.errorAt);
  return (
    <Stack gap="xs">
      <Select
        label={props.label ?? ddnsText('proxyType')}
        data={(['none', 'http', 'https', 'socks5'] as const).map((v) => ({ value: v, label: ddnsText(`proxy.${v}`) }))}
        allowDeselect={false}
        {...b.choice('type')}
        data-testid={`${props.testId}-type`}
      />
      {p.type !== 'none' && (
        <>
          <TextInput label={ddnsText('proxyAddress')} description={ddnsText('proxyAddressHint')} {...b.text('address')} data-testid={`${props.testId}-address`} />
          <Group grow align="flex-start">
            <TextInput label={ddnsText('proxyUser')} {...b.text('user')} autoComplete="off" />
            <SecretInput label={ddnsText('proxyPassword')} value={p.password} onChange={(password) => props.onChange({ ...p, password })} />
          </Group>
        </>
      )}
    </Stack>
  );
}
