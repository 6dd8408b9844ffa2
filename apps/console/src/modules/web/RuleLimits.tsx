/**
 * The rule's limits per client address (the whole rule, no sub rule has its own): requests per
 * second with their burst, connections held at once, and the largest body as a number and a unit.
 */
import { Group, NumberInput, Select, Stack, Text } from '@mantine/core';
import type { CSSProperties } from 'react';
import { bindFields } from '../../kit/form/bindFields';
import { HINT_BELOW } from '../../kit/fields/styles';
import { BODY_UNITS, type LimitsForm } from './form';
import { webText } from './i18n';

/** Each number's label (its hint is the same id with `Hint`); the test id is `web-limits-<field, lower-cased>`. */
const LABELS = { rate: 'limitRate', burst: 'limitBurst', connections: 'limitConnections', maxBody: 'limitMaxBody' } as const;

export function RuleLimits(props: { value: LimitsForm; onChange: (patch: Partial<LimitsForm>) => void; errorAt: (field: string) => string | undefined }) {
  const b = bindFields(props.value, props.onChange, props.errorAt, 'limits.');
  // Fractions where they mean something: half a request a second, 1.5 MB; out-of-range values stay, so the check names them.
  const limit = (k: keyof typeof LABELS, decimals: number, style?: CSSProperties) => (
    <NumberInput
      label={webText(LABELS[k])}
      description={webText(`${LABELS[k]}Hint`)}
      min={0}
      allowNegative={false}
      allowDecimal={decimals > 0}
      decimalScale={decimals}
      clampBehavior="none"
      {...b.number(k, k === 'maxBody' ? 'maxBodyBytes' : k)}
      inputWrapperOrder={HINT_BELOW}
      style={style}
      data-testid={`web-limits-${k.toLowerCase()}`}
    />
  );
  return (
    <Stack gap="xs" data-testid="web-limits">
      <Text fz="sm" fw={500} mt="xs">
        {webText('limits')}
      </Text>
      <Text fz="xs" c="dimmed">
        {webText('limitsHint')}
      </Text>
      <Group grow align="flex-start">
        {limit('rate', 3)}
        {limit('burst', 0)}
      </Group>
      <Group grow align="flex-start">
        {limit('connections', 0)}
        <Group align="flex-start" gap="xs" wrap="nowrap">
          {limit('maxBody', 6, { flex: 1 })}
          <Select label={webText('limitMaxBodyUnit')} data={Object.keys(BODY_UNITS)} {...b.choice('maxBodyUnit')} allowDeselect={false} w={100} data-testid="web-limits-maxbody-unit" />
        </Group>
      </Group>
    </Stack>
  );
}
