/**
 * "Sign in with …" under the password form, offered while the daemon has single sign-on on. It is a
 * link, not a call: the whole window goes to the daemon, which sends it on to the provider.
 */
import { Button, Divider } from '@mantine/core';
import { safeRoutes } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api';
import { loginText } from './i18n';
import { oidcInfoQuery } from './queries';

export function SsoButton(props: { disabled: boolean }) {
  const info = useQuery(oidcInfoQuery()).data;
  if (!info?.enable) return null;
  return (
    <>
      <Divider label={loginText('or')} labelPosition="center" />
      {/* The API client's own address of the route: the console's base, a safe entry path included. */}
      <Button component="a" href={api.url(safeRoutes.oidcLogin)} variant="default" fullWidth disabled={props.disabled} data-testid="login-sso">
        {loginText('ssoButton', { label: info.label })}
      </Button>
    </>
  );
}
