import type { TextareaProps } from '@mantine/core';
import { kitText } from '../texts';
import { LinesInput } from './LinesInput';

/** HTTP headers, one `Name: value` a line. */
export function HeaderListInput(props: TextareaProps & { 'data-testid'?: string }) {
  return <LinesInput description={kitText('headersHint')} minRows={1} maxRows={6} {...props} />;
}
