import { Input, SegmentedControl, type SegmentedControlProps } from '@mantine/core';

/** A few choices side by side, labelled like an input. */
export function SegmentedField({ label, description, ...control }: SegmentedControlProps & { label: string; description?: string; 'data-testid'?: string }) {
  return (
    <Input.Wrapper label={label} description={description}>
      <div>
        <SegmentedControl mt={description ? 4 : 0} {...control} />
      </div>
    </Input.Wrapper>
  );
}
