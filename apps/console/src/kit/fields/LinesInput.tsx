import { Textarea, type TextareaProps } from '@mantine/core';
import { mono } from './styles';

/** A list, one entry a line (addresses, domains, targets, MACs), growing with its content. */
export function LinesInput(props: TextareaProps & { 'data-testid'?: string }) {
  return <Textarea autosize minRows={2} maxRows={8} styles={mono} {...props} />;
}
