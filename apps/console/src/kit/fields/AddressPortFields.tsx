import { Group, TextInput, type NumberInputProps, type TextInputProps } from '@mantine/core';
import { mono } from './styles';
import { WholeNumberInput } from './WholeNumberInput';

type TestId = { 'data-testid'?: string };

/** An IP address (or host) and a port 1-65535, side by side. */
export function AddressPortFields(props: { address: TextInputProps & TestId; port: NumberInputProps & TestId }) {
  return (
    <Group grow align="flex-start">
      <TextInput styles={mono} {...props.address} />
      <WholeNumberInput min={1} max={65535} {...props.port} />
    </Group>
  );
}
