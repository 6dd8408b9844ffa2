/**
 * Forward auth of a rule or a sub rule: the switch, the authorizer's address, the headers of its
 * 2xx answer copied to the app, how long it may take, and whether its certificate is checked. The
 * fields show while it is on, and while one of them holds a problem (a bad address left behind).
 */
import { Group, Stack, Switch, Text, TextInput } from '@mantine/core';
import { bindFields } from '../../kit/form/bindFields';
import { LinesInput } from '../../kit/fields/LinesInput';
import { mono } from '../../kit/fields/styles';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import type { AccessForm } from './form';
import { webText } from './i18n';

type ForwardAuth = AccessForm['forwardAuth'];

const CHECKED = ['url', 'copyHeaders', 'timeoutSeconds'] as const;
const EXAMPLE_URL = 'http://authelia:9091/api/authz/forward-auth';

export function ForwardAuthFields(props: { value: ForwardAuth; onChange: (patch: Partial<ForwardAuth>) => void; errorAt: (field: string) => string | undefined; testId: string }) {
  const b = bindFields(props.value, props.onChange, props.errorAt, 'forwardAuth.');
  const tid = `${props.testId}-forwardauth`;
  const shown = props.value.enable || CHECKED.some((field) => props.errorAt(`forwardAuth.${field}`) !== undefined);
  return (
    <Stack gap="xs">
      <Text fz="xs" c="dimmed">
        {webText('forwardAuthHint')}
      </Text>
      <Switch label={webText('enable')} {...b.check('enable')} data-testid={`${tid}-enable`} />
      {shown && (
        <>
          <TextInput label={webText('forwardAuthUrl')} description={webText('forwardAuthUrlHint')} placeholder={EXAMPLE_URL} {...b.text('url')} styles={mono} data-testid={`${tid}-url`} />
          <LinesInput label={webText('forwardAuthHeaders')} description={webText('forwardAuthHeadersHint')} minRows={1} {...b.text('copyHeaders')} data-testid={`${tid}-headers`} />
          <Group align="flex-end">
            <WholeNumberInput label={webText('forwardAuthTimeout')} description="1-60" min={1} max={60} {...b.number('timeoutSeconds')} maw={200} data-testid={`${tid}-timeout`} />
            <Switch label={webText('forwardAuthSkipTls')} {...b.check('skipTlsVerify')} mb={8} data-testid={`${tid}-skiptls`} />
          </Group>
        </>
      )}
    </Stack>
  );
}
