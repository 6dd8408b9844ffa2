import { NumberInput, type NumberInputProps } from '@mantine/core';

/** A whole number as typed: out-of-range values stay, so the form's check names them. */
export function WholeNumberInput(props: NumberInputProps & { 'data-testid'?: string }) {
  return <NumberInput clampBehavior="none" allowDecimal={false} {...props} />;
}
