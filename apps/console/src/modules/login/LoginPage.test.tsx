/** The login form in jsdom: the 2FA field follows /version, empty fields are refused before any call. */
import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createMemoryHistory, createRootRoute, createRoute, createRouter, Outlet, RouterProvider } from '@tanstack/react-router';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { versionQuery } from '../../api/queries';
import { withDomShims } from '../../testing/dom';
import { LoginPage } from './LoginPage';

withDomShims();

async function renderLogin(twoFAEnable: boolean) {
  const fetchSpy = vi.fn(() => Promise.reject(new Error('no network in this test')));
  vi.stubGlobal('fetch', fetchSpy);
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  queryClient.setQueryData(versionQuery().queryKey, { ret: 0 as const, version: '1.0.0', twoFAEnable });
  const root = createRootRoute({ component: Outlet });
  const login = createRoute({ getParentRoute: () => root, path: '/login', component: LoginPage });
  const router = createRouter({ routeTree: root.addChildren([login]), history: createMemoryHistory({ initialEntries: ['/login'] }) });
  render(
    <MantineProvider env="test">
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>,
  );
  await screen.findByTestId('login-form');
  return fetchSpy;
}

describe('LoginPage', () => {
  it('asks for a 2FA code only when the daemon says 2FA is on', async () => {
    await renderLogin(false);
    expect(screen.queryByTestId('login-2fa')).toBeNull();
    cleanup();
    await renderLogin(true);
    expect(screen.getByTestId('login-2fa')).toBeTruthy();
  });

  it('refuses empty fields with the spec message, without calling the daemon', async () => {
    const fetchSpy = await renderLogin(false);
    fireEvent.click(screen.getByTestId('login-submit'));
    expect((await screen.findByTestId('login-error')).textContent).toBe('账号或密码不能为空');
    expect(screen.getByTestId('login-reset-hint').textContent).toContain('lucky_base.lkcf');
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});
