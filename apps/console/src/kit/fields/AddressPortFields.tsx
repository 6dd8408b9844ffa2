import { Group, TextInput, type NumberInputProps, type TextInputProps } from '@mantine/core';
import { HINT_BELOW, mono } from './styles';
import { WholeNumberInput } from './WholeNumberInput';

type TestId = { 'data-testid'?: string };

/** An IP address (or host) and a port 1-65535, side by side; hints go under, so the two line up. */
export function AddressPortFields(props: { address: TextInputProps & TestId; port: NumberInputProps & TestId }) {
  return (
    <Group grow align="flex-start">
      <TextInput styles={mono} inputWrapperOrder={HINT_BELOW} {...props.address} />
      <WholeNumberInput min={1} max={65535} inputWrapperOrder={HINT_BELOW} {...props.port} />
    </Group>
  );
}
