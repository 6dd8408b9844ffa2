import '@mantine/core/styles.css';
import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { setSessionLostHandlers } from './api';
import { lang } from './i18n';
import { createAppRouter } from './routes';
import { preloadChrome } from './shell/Shell';
import { storage } from './storage';
import { theme } from './theme';

const queryClient = new QueryClient({
  defaultOptions: { queries: { refetchOnWindowFocus: false, retry: false } },
});
const router = createAppRouter(queryClient);

setSessionLostHandlers(
  () => {
    if (router.state.location.pathname !== '/login') void router.navigate({ to: '/login' });
  },
  () => queryClient.clear(),
);

document.documentElement.lang = lang === 'en_US' ? 'en' : 'zh-CN';
if (storage.get('token')) preloadChrome();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider theme={theme}>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
