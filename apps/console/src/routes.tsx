/**
 * The spec's route table (section 2) on hash history. `/` goes to `/about`; module routes exist only
 * for the fixed module list; module screens load on demand so the login page stays small.
 */
import { CONSOLE_MODULE_NAMES } from '@lucky/contracts';
import type { QueryClient } from '@tanstack/react-query';
import {
  createHashHistory,
  createRootRouteWithContext,
  createRoute,
  createRouter,
  lazyRouteComponent,
  redirect,
  type AnyRoute,
  type RouteComponent,
} from '@tanstack/react-router';
import type { MessageId } from './i18n';
import { importWithRetry } from './lib/lazy';
import { LoginPage } from './modules/login/LoginPage';
import { NotFound } from './shell/NotFound';
import { RouteError } from './shell/RouteError';
import { Shell } from './shell/Shell';
import { storage } from './storage';
import type { RouteMeta } from './routeMeta';

export { routeMeta, type RouteMeta } from './routeMeta';

export interface RouterContext {
  queryClient: QueryClient;
}

export const rootRoute = createRootRouteWithContext<RouterContext>()({
  component: Shell,
  notFoundComponent: NotFound,
  beforeLoad: ({ location }) => {
    // Without a token every screen but /login would only answer "session invalid".
    if (location.pathname !== '/login' && !storage.get('token')) throw redirect({ to: '/login' });
  },
});

const indexRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/',
  beforeLoad: () => {
    throw redirect({ to: '/about' });
  },
});

const page = (path: string, title: MessageId, component: RouteComponent, module?: string) =>
  createRoute({ getParentRoute: () => rootRoute, path, component, staticData: { title, ...(module ? { module } : {}) } satisfies RouteMeta });

const coreRoutes = [
  page('/login', 'route.login', LoginPage),
  page('/about', 'route.about', lazyRouteComponent(() => importWithRetry(() => import('./modules/about/AboutPage')), 'AboutPage')),
  page('/set', 'route.set', lazyRouteComponent(() => importWithRetry(() => import('./modules/settings/SettingsPage')), 'SettingsPage')),
  page('/safe', 'route.safe', lazyRouteComponent(() => importWithRetry(() => import('./modules/safe/SafePage')), 'SafePage'), 'safe'),
  page('/status', 'route.status', lazyRouteComponent(() => importWithRetry(() => import('./modules/status/StatusPage')), 'StatusPage')),
  // The menu links here (spec section 2): the managed devices, and one device's page.
  page('/wanjiadmin', 'route.wanjiadmin', lazyRouteComponent(() => importWithRetry(() => import('./modules/wanji/WanjiPage')), 'WanjiPage'), 'wanji'),
  page('/wanjiadmin/$key', 'route.wanjiadmin', lazyRouteComponent(() => importWithRetry(() => import('./modules/wanji/DevicePage')), 'DevicePage'), 'wanji'),
];

/** Module screens by the spec's module name; diy has no screen definition. */
const MODULE_SCREENS: Partial<Record<(typeof CONSOLE_MODULE_NAMES)[number], { title: MessageId; module: string; component: RouteComponent }>> = {
  ftpserver: {
    title: 'route.ftpserver',
    module: 'ftpserver',
    component: lazyRouteComponent(() => importWithRetry(() => import('./modules/ftpserver/FtpserverPage')), 'FtpserverPage'),
  },
  sftpserver: {
    title: 'route.sftpserver',
    module: 'sftpserver',
    component: lazyRouteComponent(() => importWithRetry(() => import('./modules/sftpserver/SftpserverPage')), 'SftpserverPage'),
  },
  cron: { title: 'route.cron', module: 'cron', component: lazyRouteComponent(() => importWithRetry(() => import('./modules/cron/CronPage')), 'CronPage') },
  wol: { title: 'route.wol', module: 'wol', component: lazyRouteComponent(() => importWithRetry(() => import('./modules/wol/WolPage')), 'WolPage') },
  webdav: { title: 'route.webdav', module: 'webdav', component: lazyRouteComponent(() => importWithRetry(() => import('./modules/webdav/WebdavPage')), 'WebdavPage') },
  filebrowser: {
    title: 'route.filebrowser',
    module: 'filebrowser',
    component: lazyRouteComponent(() => importWithRetry(() => import('./modules/filebrowser/FilebrowserPage')), 'FilebrowserPage'),
  },
  storagemanagement: {
    title: 'route.storagemanagement',
    module: 'storage',
    component: lazyRouteComponent(() => importWithRetry(() => import('./modules/storage/StoragePage')), 'StoragePage'),
  },
  ddns: { title: 'route.ddns', module: 'ddns', component: lazyRouteComponent(() => importWithRetry(() => import('./modules/ddns/DdnsPage')), 'DdnsPage') },
  web: { title: 'route.web', module: 'web', component: lazyRouteComponent(() => importWithRetry(() => import('./modules/web/WebPage')), 'WebPage') },
  stun: { title: 'route.stun', module: 'stun', component: lazyRouteComponent(() => importWithRetry(() => import('./modules/stun/StunPage')), 'StunPage') },
  acme: { title: 'route.acme', module: 'acme', component: lazyRouteComponent(() => importWithRetry(() => import('./modules/acme/AcmePage')), 'AcmePage') },
  publish: { title: 'route.publish', module: 'publish', component: lazyRouteComponent(() => importWithRetry(() => import('./modules/publish/PublishPage')), 'PublishPage') },
  portal: { title: 'route.portal', module: 'portal', component: lazyRouteComponent(() => importWithRetry(() => import('./modules/portal/PortalPage')), 'PortalPage') },
  portforward: { title: 'route.portforward', module: 'portforward', component: lazyRouteComponent(() => importWithRetry(() => import('./modules/portforward/PortforwardPage')), 'PortforwardPage') },
};

const moduleRoutes: AnyRoute[] = CONSOLE_MODULE_NAMES.flatMap((name) => {
  const def = MODULE_SCREENS[name];
  return def ? [page(`/${name}`, def.title, def.component, def.module)] : [];
});

export const routeTree = rootRoute.addChildren([indexRoute, ...coreRoutes, ...moduleRoutes]);

export function createAppRouter(queryClient: QueryClient) {
  return createRouter({
    routeTree,
    history: createHashHistory(),
    context: { queryClient },
    defaultPreload: 'intent',
    defaultErrorComponent: RouteError,
    defaultPendingMs: 300,
  });
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof createAppRouter>;
  }
}
