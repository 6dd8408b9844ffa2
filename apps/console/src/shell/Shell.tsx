/**
 * The layout of spec section 2: top bar (menu dropdown at ≤1200 px, title with version, language
 * switch), the left menu above 1200 px, the page; no menu on /login. Also the page title.
 */
import { Box, UnstyledButton, Group, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Outlet, useMatches, useNavigate, useRouterState } from '@tanstack/react-router';
import { Suspense, useEffect, useMemo, useState } from 'react';
import { lazyWithRetry } from '../lib/lazy';
import { coreRoutes } from '@lucky/contracts';
import { call } from '../api';
import { frontendControlQuery, modulesQuery, versionQuery } from '../api/queries';
import { PROJECT_SITE } from '../config';
import { shellText } from '../i18n';
import { storage } from '../storage';
import { LangSwitch } from './LangSwitch';
import { buildMenu } from './menu';
import { Notices } from './Notices';
import { routeMeta } from '../routeMeta';

/** The logged-in chrome; fetched early once a session exists (see preloadChrome). */
export const loadChrome = () => import('./Chrome');
export function preloadChrome(): void {
  void loadChrome().catch(() => undefined);
}
const LogDialog = lazyWithRetry(() => import('./LogDialog').then((m) => ({ default: m.LogDialog })));
const TopMenu = lazyWithRetry(() => loadChrome().then((m) => ({ default: m.TopMenu })));
const LeftNav = lazyWithRetry(() => loadChrome().then((m) => ({ default: m.LeftNav })));
const LogoutDialog = lazyWithRetry(() => loadChrome().then((m) => ({ default: m.LogoutDialog })));

/** Spec section 9: the menu layout switches at 1200 px. */
export const WIDE_QUERY = '(min-width: 1201px)';
export const HEADER_HEIGHT = 50;
export const NAV_WIDTH = 210;

function usePageTitle(): void {
  const matches = useMatches();
  const title = [...matches].map((m) => routeMeta(m.staticData)).reverse().find((m) => m.title)?.title;
  useEffect(() => {
    document.title = title ? `Lucky | ${shellText(title)}` : 'Lucky';
  }, [title]);
}

export function Shell() {
  usePageTitle();
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  const onLogin = pathname === '/login';
  const wide = useMediaQuery(WIDE_QUERY, typeof window !== 'undefined' && window.matchMedia(WIDE_QUERY).matches, {
    getInitialValueInEffect: false,
  });
  const narrow = !wide;
  const loggedIn = !onLogin;
  const version = useQuery(versionQuery());
  const modules = useQuery({ ...modulesQuery(), enabled: loggedIn });
  const control = useQuery({ ...frontendControlQuery(), enabled: loggedIn });
  const menu = useMemo(() => buildMenu(modules.data?.Modules ?? []), [modules.data]);
  const [logOpen, setLogOpen] = useState(false);
  const [logoutOpen, setLogoutOpen] = useState(false);
  const navigate = useNavigate();
  const queryClient = useQueryClient();

  useEffect(() => {
    if (version.data) storage.set('twoFAEnable', version.data.twoFAEnable);
  }, [version.data]);
  useEffect(() => {
    if (onLogin) setLogOpen(false);
  }, [onLogin]);

  const onAction = (id: 'log' | 'logout') => (id === 'log' ? setLogOpen(true) : setLogoutOpen(true));
  const logout = async () => {
    setLogoutOpen(false);
    // The result is ignored (spec section 4): the session ends here either way.
    await call(coreRoutes.logout, {}, { silent: true }).catch(() => undefined);
    storage.remove('token');
    queryClient.clear();
    await navigate({ to: '/login' });
  };

  // The left menu waits for the layout flags: a submenu's first open state is read once, on mount.
  const showLeft = loggedIn && wide && !control.isPending;
  const showTopMenu = loggedIn && narrow;
  const versionText = version.data?.version ?? '';

  return (
    <Box mih="100vh" bg="var(--mantine-color-gray-0)">
      <Box
        component="header"
        data-testid="topbar"
        h={HEADER_HEIGHT}
        px="md"
        style={{
          position: 'sticky',
          top: 0,
          zIndex: 100,
          display: 'flex',
          alignItems: 'center',
          gap: 12,
          background: 'var(--mantine-color-blue-7)',
          color: 'white',
        }}
      >
        {showTopMenu && (
          <Suspense fallback={null}>
            <TopMenu entries={menu} onAction={onAction} />
          </Suspense>
        )}
        <UnstyledButton
          component="a"
          href={PROJECT_SITE}
          target="_blank"
          rel="noopener noreferrer"
          title={shellText('shell.titleLink')}
          data-testid="app-title"
          style={{ color: 'white', fontWeight: 700, fontSize: 18 }}
        >
          Lucky {versionText}
        </UnstyledButton>
        <Box style={{ flex: 1 }} />
        <LangSwitch />
      </Box>
      <Box style={{ display: 'flex', alignItems: 'stretch' }}>
        {showLeft && (
          <Box
            component="nav"
            data-testid="left-menu"
            w={NAV_WIDTH}
            style={{
              flex: `0 0 ${NAV_WIDTH}px`,
              borderRight: '1px solid var(--mantine-color-gray-3)',
              background: 'white',
              position: 'sticky',
              top: HEADER_HEIGHT,
              height: `calc(100vh - ${HEADER_HEIGHT}px)`,
            }}
          >
            <Suspense fallback={null}>
              <LeftNav
                entries={menu}
                pathname={pathname}
                autoExpand={!(control.data?.FrontendDisableAutoExpandLeftMenu ?? false)}
                onAction={onAction}
              />
            </Suspense>
          </Box>
        )}
        <Box component="main" p={onLogin ? 0 : 'md'} style={{ flex: 1, minWidth: 0 }}>
          <Outlet />
        </Box>
      </Box>
      {logOpen && (
        <Suspense fallback={null}>
          <LogDialog opened={logOpen} onClose={() => setLogOpen(false)} />
        </Suspense>
      )}
      {loggedIn && (
        <Suspense fallback={null}>
          <LogoutDialog opened={logoutOpen} onCancel={() => setLogoutOpen(false)} onConfirm={() => void logout()} />
        </Suspense>
      )}
      <Notices />
    </Box>
  );
}

export function PageTitle(props: { children: React.ReactNode; right?: React.ReactNode }) {
  return (
    <Group justify="space-between" mb="md">
      <Text component="h1" fw={700} fz={20} m={0}>
        {props.children}
      </Text>
      {props.right}
    </Group>
  );
}
