/** The task form in jsdom: easy mode hides the advanced fields, an empty domain list is refused without a call, a mask is sent back. */
import { MantineProvider } from '@mantine/core';
import { DDNS_PROVIDER_INFO, DDNS_PROVIDERS, SECRET_MASK, ZDdnsTask, type DdnsTask } from '@lucky/contracts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ddnsProvidersQuery } from './queries';
import { TaskFormModal, type Editing } from './TaskForm';

beforeAll(() => {
  window.matchMedia ??= ((query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
    addListener: () => undefined,
    removeListener: () => undefined,
    dispatchEvent: () => false,
  })) as unknown as typeof window.matchMedia;
  // Mantine's ScrollArea and autosize textareas measure with these.
  globalThis.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  } as unknown as typeof ResizeObserver;
  Element.prototype.scrollIntoView ??= () => undefined;
  if (!('fonts' in document)) {
    Object.defineProperty(document, 'fonts', { value: { addEventListener: () => undefined, removeEventListener: () => undefined, ready: Promise.resolve() } });
  }
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function renderForm(editing: Editing) {
  const fetchSpy = vi.fn((_url: string, _init?: RequestInit) => Promise.resolve(new Response(JSON.stringify({ ret: 0, key: 'k1', msg: '' }))));
  vi.stubGlobal('fetch', fetchSpy);
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  queryClient.setQueryData(ddnsProvidersQuery().queryKey, {
    ret: 0 as const,
    providers: DDNS_PROVIDERS.map((name) => ({ name, ...DDNS_PROVIDER_INFO[name] })),
    webhookPresets: {},
    callbackPresets: {},
  });
  render(
    <MantineProvider env="test">
      <QueryClientProvider client={queryClient}>
        <TaskFormModal editing={editing} onClose={() => undefined} />
      </QueryClientProvider>
    </MantineProvider>,
  );
  return fetchSpy;
}

const saved = ZDdnsTask.parse({
  name: 'cf',
  provider: 'cloudflare',
  domains: ['www.example.com'],
  credentials: { secret: SECRET_MASK },
}) as DdnsTask;

describe('TaskFormModal', () => {
  it('easy mode hides the advanced settings; customized shows them', async () => {
    renderForm({ key: null, saved: null });
    await screen.findByTestId('ddns-name');
    expect(screen.queryByTestId('ddns-advanced')).toBeNull();
    fireEvent.click(screen.getByText('自定义模式'));
    expect(await screen.findByTestId('ddns-advanced')).toBeTruthy();
    expect(screen.getByTestId('ddns-forcesync')).toBeTruthy();
  });

  it('refuses an empty domain list before any call, with the spec message on the field', async () => {
    const fetchSpy = renderForm({ key: null, saved: null });
    fireEvent.change(await screen.findByTestId('ddns-name'), { target: { value: 'x' } });
    fireEvent.change(screen.getByTestId('ddns-cred-secret'), { target: { value: 'token' } });
    fireEvent.click(screen.getByTestId('ddns-save'));
    expect((await screen.findByTestId('ddns-form-error-message')).textContent).toBe('域名列表不能为空');
    expect(screen.getByTestId('ddns-form-error-summary').textContent).toContain('domains');
    expect(screen.getByTestId('ddns-domains').getAttribute('aria-invalid')).toBe('true');
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('an unchanged stored secret goes back as the mask', async () => {
    const fetchSpy = renderForm({ key: 'k1', saved });
    expect(((await screen.findByTestId('ddns-cred-secret')) as HTMLInputElement).value).toBe(SECRET_MASK);
    fireEvent.click(screen.getByTestId('ddns-save'));
    await waitFor(() => expect(fetchSpy).toHaveBeenCalled());
    const [url, init] = fetchSpy.mock.calls[0]!;
    expect(String(url)).toContain('/api/ddns/rules/k1');
    expect(init?.method).toBe('PUT');
    const body = JSON.parse(String(init?.body)) as DdnsTask;
    expect(body.credentials.secret).toBe(SECRET_MASK);
    expect(body.domains).toEqual(['www.example.com']);
  });
});
