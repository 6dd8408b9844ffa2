/**
 * The login form in jsdom: the 2FA field follows /version, empty fields are refused before any call;
 * single sign-on: the button follows /api/oidc, the way back trades its code once and keeps the token
 * as a password login does, a refusal is shown, and the query leaves the address either way.
 */
import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createMemoryHistory, createRootRoute, createRoute, createRouter, Outlet, RouterProvider } from '@tanstack/react-router';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { StrictMode } from 'react';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { versionQuery } from '../../api/queries';
import { storage } from '../../storage';
import { withDomShims } from '../../testing/dom';
import { LoginPage } from './LoginPage';
import { oidcInfoQuery } from './queries';

withDomShims();
afterEach(() => storage.remove('token'));
// The router restores the scroll position on navigating, which jsdom does not do.
const jsdomScrollTo = window.scrollTo;
beforeAll(() => (window.scrollTo = () => undefined));
afterAll(() => (window.scrollTo = jsdomScrollTo));

type Fetch = (url: string, init?: RequestInit) => Promise<Response>;
const noNetwork: Fetch = () => Promise.reject(new Error('no network in this test'));
const answer = (value: unknown) => Promise.resolve(new Response(JSON.stringify(value)));

async function renderLogin(opts: { twoFAEnable?: boolean; sso?: { enable: boolean; label: string }; at?: string; fetch?: Fetch } = {}) {
  const fetchSpy = vi.fn(opts.fetch ?? noNetwork);
  vi.stubGlobal('fetch', fetchSpy);
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  queryClient.setQueryData(versionQuery().queryKey, { ret: 0 as const, version: '1.0.0', twoFAEnable: opts.twoFAEnable ?? false });
  queryClient.setQueryData(oidcInfoQuery().queryKey, { ret: 0 as const, ...(opts.sso ?? { enable: false, label: 'SSO' }) });
  const root = createRootRoute({ component: Outlet });
  const login = createRoute({ getParentRoute: () => root, path: '/login', component: LoginPage });
  const status = createRoute({ getParentRoute: () => root, path: '/status', component: () => <p data-testid="status-page" /> });
  const router = createRouter({ routeTree: root.addChildren([login, status]), history: createMemoryHistory({ initialEntries: [opts.at ?? '/login'] }) });
  // As main.tsx renders it: StrictMode runs effects twice, and a code must still be traded once.
  render(
    <StrictMode>
      <MantineProvider env="test">
        <QueryClientProvider client={queryClient}>
          <RouterProvider router={router} />
        </QueryClientProvider>
      </MantineProvider>
    </StrictMode>,
  );
  await screen.findByTestId('login-form');
  return { fetchSpy, router };
}

describe('LoginPage', () => {
  it('asks for a 2FA code only when the daemon says 2FA is on', async () => {
    await renderLogin({ twoFAEnable: false });
    expect(screen.queryByTestId('login-2fa')).toBeNull();
    cleanup();
    await renderLogin({ twoFAEnable: true });
    expect(screen.getByTestId('login-2fa')).toBeTruthy();
  });

  it('refuses empty fields with the spec message, without calling the daemon', async () => {
    const { fetchSpy } = await renderLogin();
    fireEvent.click(screen.getByTestId('login-submit'));
    expect((await screen.findByTestId('login-error')).textContent).toBe('账号或密码不能为空');
    expect(screen.getByTestId('login-reset-hint').textContent).toContain('lucky_base.lkcf');
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});

describe('single sign-on on the login page', () => {
  it('offers no button while the daemon has single sign-on off', async () => {
    await renderLogin();
    expect(screen.queryByTestId('login-sso')).toBeNull();
  });

  it("offers the provider's button, a link to the daemon's sign-in under the console's base", async () => {
    // The console under a safe entry path: its calls, and this link, go below it.
    const base = document.createElement('base');
    base.href = 'http://lucky.test/s3cret/';
    document.head.append(base);
    try {
      await renderLogin({ sso: { enable: true, label: 'Authentik' } });
      const button = screen.getByTestId('login-sso');
      expect(button.textContent).toBe('使用 Authentik 登录');
      const href = new URL(button.getAttribute('href')!);
      expect(`${href.origin}${href.pathname}`).toBe('http://lucky.test/s3cret/api/oidc/login');
    } finally {
      base.remove();
    }
  });

  it('trades the one-time code once, keeps the token as a password login does, and goes on to the status page', async () => {
    const fetch: Fetch = (url) => (url.includes('/api/oidc/exchange') ? answer({ ret: 0, token: 'tok-sso', msg: 'alice signed in' }) : noNetwork(url));
    const { fetchSpy, router } = await renderLogin({ at: '/login?sso=c0de-123', fetch });
    await screen.findByTestId('status-page');
    const exchanges = fetchSpy.mock.calls.filter(([url]) => url.includes('/api/oidc/exchange'));
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]![1]?.method).toBe('POST');
    expect(JSON.parse(String(exchanges[0]![1]?.body))).toEqual({ code: 'c0de-123' });
    expect(storage.get('token')).toBe('tok-sso');
    // The spent code is no longer in the history the back button would reach.
    router.history.back();
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(router.state.location.searchStr).toBe('');
  });

  it("shows the daemon's refusal of the code, and takes the code off the address", async () => {
    const fetch: Fetch = () => answer({ ret: 2, msg: 'the sign-in code is wrong or expired: please sign in again' });
    const { router } = await renderLogin({ at: '/login?sso=old', fetch });
    expect((await screen.findByTestId('login-error')).textContent).toBe('the sign-in code is wrong or expired: please sign in again');
    expect(router.state.location.searchStr).toBe('');
    expect(storage.get('token')).toBeUndefined();
  });

  it("shows the provider's refusal the daemon sent back, without calling anything", async () => {
    const why = encodeURIComponent('alice is not in a group that may manage Lucky');
    const { fetchSpy, router } = await renderLogin({ at: `/login?ssoError=${why}` });
    expect((await screen.findByTestId('login-error')).textContent).toBe('alice is not in a group that may manage Lucky');
    await waitFor(() => expect(router.state.location.searchStr).toBe(''));
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});
