/** A forwarding rule's limits: blank ones follow the module (shown greyed), one the rule does not use is lighter. */
import { Group, Stack, Text } from '@mantine/core';
import { LIMIT_FIELDS, type LimitField, type LimitsForm } from '../form/limits';
import { kitText } from '../texts';
import { WholeNumberInput } from './WholeNumberInput';

export function LimitFields(props: {
  value: LimitsForm;
  onChange: (limits: Partial<LimitsForm>) => void;
  err: (field: string) => string | undefined;
  hint: string;
  /** What a blank field means. */
  placeholder: (field: LimitField) => string;
  /** A limit the rule's protocols do not use. */
  unused?: (field: LimitField) => boolean;
  testPrefix: string;
}) {
  const limit = (field: LimitField) => (
    <WholeNumberInput
      key={field}
      allowNegative={false}
      label={kitText(`limit.${field}`)}
      placeholder={props.placeholder(field)}
      value={props.value[field]}
      onChange={(v) => props.onChange({ [field]: v })}
      error={props.err(`limits.${field}`)}
      opacity={props.unused?.(field) ? 0.6 : 1}
      data-testid={`${props.testPrefix}-limit-${field}`}
    />
  );
  return (
    <Stack gap="sm">
      <Text fz="sm" c="dimmed">
        {props.hint}
      </Text>
      <Group grow align="flex-start">
        {LIMIT_FIELDS.slice(0, 3).map(limit)}
      </Group>
      <Group grow align="flex-start">
        {LIMIT_FIELDS.slice(3).map(limit)}
        <div />
      </Group>
    </Stack>
  );
}
