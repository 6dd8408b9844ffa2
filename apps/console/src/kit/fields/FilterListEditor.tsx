import { Stack, Text } from '@mantine/core';
import { LinesInput } from './LinesInput';
import { SegmentedField } from './SegmentedField';

/** An allow/deny list (IP addresses and ranges, user agents): off, or a mode and its entries. */
export function FilterListEditor<M extends string>(props: {
  modes: readonly { value: M | 'off'; label: string }[];
  mode: M | 'off';
  onMode: (mode: M | 'off') => void;
  modeLabel?: string;
  list: string;
  onList: (list: string) => void;
  listLabel: string;
  hint: string;
  placeholder?: string | undefined;
  error: string | undefined;
  /** Under the list while it is in use (how many entries). */
  footer?: string;
  testIds: { mode: string; list: string };
}) {
  return (
    <Stack gap="xs">
      <SegmentedField
        label={props.modeLabel ?? ''}
        data={props.modes.map((m) => ({ value: m.value, label: m.label }))}
        value={props.mode}
        onChange={(v) => props.onMode(v as M | 'off')}
        data-testid={props.testIds.mode}
      />
      {props.mode !== 'off' && (
        <>
          <LinesInput
            label={props.listLabel}
            description={props.hint}
            placeholder={props.placeholder}
            maxRows={12}
            value={props.list}
            onChange={(e) => props.onList(e.currentTarget.value)}
            error={props.error}
            data-testid={props.testIds.list}
          />
          {props.footer && (
            <Text fz="xs" c="dimmed">
              {props.footer}
            </Text>
          )}
        </>
      )}
    </Stack>
  );
}
