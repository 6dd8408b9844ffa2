/**
 * Login (spec sections 5 and 8): account + password (+ 2FA code when the daemon asks for it), and
 * single sign-on when the daemon offers it (the button, and the way back from the provider).
 */
import { Alert, Button, Card, Center, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { coreRoutes } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { call } from '../../api';
import { versionQuery } from '../../api/queries';
import { shellText } from '../../i18n';
import { storage } from '../../storage';
import { loginText } from './i18n';
import { failureText, useSignedIn } from './signIn';
import { SsoButton } from './SsoButton';
import { useSsoReturn } from './useSsoReturn';

export function LoginPage() {
  const version = useQuery(versionQuery());
  const twoFA = version.data?.twoFAEnable ?? storage.get('twoFAEnable') ?? false;
  const [account, setAccount] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const signedIn = useSignedIn();
  const ssoBusy = useSsoReturn(setError);

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(null);
    if (account.trim() === '' || password === '') {
      setError(shellText('login.empty'));
      return;
    }
    setBusy(true);
    try {
      const res = await call(
        coreRoutes.login,
        { body: { Account: account.trim(), Password: password, ...(twoFA ? { TwoFA: code.trim() } : {}) } },
        { silent: true },
      );
      await signedIn(res.token);
    } catch (err) {
      setError(failureText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Center mih="calc(100vh - 50px)" p="md">
      <Card withBorder shadow="sm" w={380} maw="100%" padding="xl" radius="md">
        <form onSubmit={(e) => void submit(e)} noValidate data-testid="login-form">
          <Stack>
            <Title order={2} ta="center">
              Lucky
            </Title>
            <Text ta="center" c="dimmed" mt={-10}>
              {shellText('login.title')}
            </Text>
            <TextInput
              label={shellText('login.account')}
              name="account"
              autoComplete="username"
              value={account}
              onChange={(e) => setAccount(e.currentTarget.value)}
              data-testid="login-account"
              autoFocus
            />
            <PasswordInput
              label={shellText('login.password')}
              name="password"
              autoComplete="current-password"
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
              data-testid="login-password"
            />
            {twoFA && (
              <TextInput
                label={shellText('login.twoFA')}
                placeholder={shellText('login.twoFAPlaceholder')}
                name="twofa"
                inputMode="numeric"
                autoComplete="one-time-code"
                value={code}
                onChange={(e) => setCode(e.currentTarget.value)}
                data-testid="login-2fa"
              />
            )}
            {ssoBusy && (
              <Text fz="sm" c="dimmed" ta="center" data-testid="login-sso-busy">
                {loginText('ssoFinishing')}
              </Text>
            )}
            {error && (
              <Alert color="red" data-testid="login-error" p="xs">
                {error}
              </Alert>
            )}
            <Button type="submit" loading={busy || ssoBusy} fullWidth data-testid="login-submit">
              {shellText('login.submit')}
            </Button>
            <SsoButton disabled={busy || ssoBusy} />
            <Text fz="xs" c="dimmed" data-testid="login-reset-hint">
              {shellText('login.resetHint')}
            </Text>
          </Stack>
        </form>
      </Card>
    </Center>
  );
}
