/** A list of ports ("80,443,1000-1010") with what it means right under it: how many ports, or what is wrong. */
import { Stack, Text, TextInput, type TextInputProps } from '@mantine/core';
import { HINT_BELOW, mono } from '../../kit/fields/styles';
import type { PortFeedback } from './form';

export function PortListInput({ feedback, testId, ...input }: TextInputProps & { feedback: PortFeedback; testId: string }) {
  return (
    <Stack gap={2}>
      <TextInput withAsterisk styles={mono} inputWrapperOrder={HINT_BELOW} {...input} data-testid={testId} />
      {!input.error && feedback && (
        <Text fz="xs" c={feedback.ok ? 'teal' : 'red'} data-testid={`${testId}-count`} data-ok={feedback.ok}>
          {feedback.ok ? '✓ ' : '✗ '}
          {feedback.text}
        </Text>
      )}
    </Stack>
  );
}
