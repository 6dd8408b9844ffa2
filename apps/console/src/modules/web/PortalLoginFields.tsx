/**
 * Lucky login of a rule or a sub rule: the switch and the header the app gets the user's name in;
 * while it is on and nobody could sign in (no portal user switched on), a word and a link to the
 * Login portal, since the rule would then let no browser through.
 */
import { Alert, Anchor, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { bindFields } from '../../kit/form/bindFields';
import { mono } from '../../kit/fields/styles';
import { portalUsersQuery } from '../portal/queries';
import type { AccessForm } from './form';
import { webText } from './i18n';

type Portal = AccessForm['portal'];

export function PortalLoginFields(props: { value: Portal; onChange: (patch: Partial<Portal>) => void; errorAt: (field: string) => string | undefined; testId: string }) {
  const b = bindFields(props.value, props.onChange, props.errorAt, 'portal.');
  const tid = props.testId;
  return (
    <Stack gap="xs">
      <Text fz="xs" c="dimmed">
        {webText('portalHint')}
      </Text>
      <Switch label={webText('enable')} {...b.check('enable')} data-testid={`${tid}-portal-enable`} />
      {props.value.enable && (
        <>
          <TextInput
            label={webText('portalHeader')}
            description={webText('portalHeaderHint')}
            placeholder="Remote-User"
            {...b.text('userHeader')}
            styles={mono}
            data-testid={`${tid}-portal-header`}
          />
          <NobodyCanSignIn testId={`${tid}-portal-nousers`} />
        </>
      )}
    </Stack>
  );
}

/** Shown only once the portal's users are known to be none on (or cannot be read: the module is off). */
function NobodyCanSignIn(props: { testId: string }) {
  const users = useQuery(portalUsersQuery());
  const nobody = users.isError || (users.data !== undefined && !users.data.list.some((u) => u.enable));
  if (!nobody) return null;
  return (
    <Alert color="orange" p="xs" data-testid={props.testId}>
      <Text fz="sm">
        {webText('portalNoUsers')}{' '}
        <Anchor href="#/portal" fz="sm" data-testid={`${props.testId}-link`}>
          {webText('portalOpen')}
        </Anchor>
      </Text>
    </Alert>
  );
}
