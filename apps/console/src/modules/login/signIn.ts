/** A login's outcome, the same by password or by single sign-on. */
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { ApiError, api } from '../../api';
import { pushNotice } from '../../api/notices';
import { shellText } from '../../i18n';
import { preloadChrome } from '../../shell/Shell';
import { storage } from '../../storage';

/** Keeps the session token, starts the console afresh (nothing cached from before), and goes to the status page. */
export function useSignedIn(): (token: string, notice?: string) => Promise<void> {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return async (token, notice) => {
    storage.set('token', token);
    preloadChrome();
    api.resetFailures();
    queryClient.clear();
    pushNotice(notice || shellText('login.success'), 'green');
    await navigate({ to: '/status' });
  };
}

/** The daemon's message is already in the user's language; a transport error gets the spec's text. */
export const failureText = (err: unknown): string => (err instanceof ApiError && err.kind === 'backend' ? err.message : shellText('login.failed'));
