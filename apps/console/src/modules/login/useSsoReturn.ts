/**
 * The end of a single sign-on: the daemon's callback sends the browser to `#/login?sso=<one-time code>`
 * or `#/login?ssoError=<why>`. The code is traded for a session once; the query is taken off the
 * address at once, so a reload neither spends the code again nor shows an old refusal.
 */
import { safeRoutes } from '@lucky/contracts';
import { useLocation, useNavigate } from '@tanstack/react-router';
import { useEffect, useRef, useState } from 'react';
import { call } from '../../api';
import { failureText, useSignedIn } from './signIn';

/** Whether the code is being traded; `fail` gets what to show as the login's error. */
export function useSsoReturn(fail: (message: string) => void): boolean {
  // The raw query: the router's parsed search would turn a code or a message that looks like JSON into a value.
  const searchStr = useLocation({ select: (l) => l.searchStr });
  const navigate = useNavigate();
  const signedIn = useSignedIn();
  const [busy, setBusy] = useState(false);
  // StrictMode runs the effect twice; the second run must not trade a code the first has spent.
  const handled = useRef('');

  useEffect(() => {
    const q = new URLSearchParams(searchStr);
    const code = q.get('sso');
    const refusal = q.get('ssoError');
    if ((code === null && refusal === null) || handled.current === searchStr) return;
    handled.current = searchStr;
    void navigate({ to: '/login', search: {}, replace: true });
    if (code === null) {
      fail(refusal!);
      return;
    }
    setBusy(true);
    call(safeRoutes.oidcExchange, { body: { code } }, { silent: true })
      .then((r) => signedIn(r.token, r.msg))
      .catch((err: unknown) => fail(failureText(err)))
      .finally(() => setBusy(false));
    // Once per address: the callbacks are new each render and must not start it again.
  }, [searchStr]);

  return busy;
}
