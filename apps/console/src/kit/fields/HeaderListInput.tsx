import type { TextareaProps } from '@mantine/core';
import { bindTexts } from '../../i18n';
import { en_US, zh_CN } from '../texts';
import { LinesInput } from './LinesInput';

const kitText = bindTexts({ zh_CN, en_US });

/** HTTP headers, one `Name: value` a line. */
export function HeaderListInput(props: TextareaProps & { 'data-testid'?: string }) {
  return <LinesInput description={kitText('headersHint')} minRows={1} maxRows={6} {...props} />;
}
