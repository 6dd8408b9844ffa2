import { Group, Switch, TextInput, type SwitchProps, type TextInputProps } from '@mantine/core';

type TestId = { 'data-testid'?: string };

/** A rule's name with its on/off switch beside it. */
export function NameAndSwitch(props: { name: TextInputProps & TestId; enable: SwitchProps & TestId }) {
  return (
    <Group grow align="flex-start">
      <TextInput {...props.name} />
      <Switch mt={30} {...props.enable} />
    </Group>
  );
}
