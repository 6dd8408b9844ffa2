/** What component tests in jsdom share: the browser parts Mantine measures with, providers, a stubbed fetch. */
import { MantineProvider } from '@mantine/core';
import type { RuleStatus } from '@lucky/contracts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import type { ComponentType, ReactNode } from 'react';
import { afterEach, beforeAll, expect, vi } from 'vitest';
import { RuleDialog } from '../kit/rule-dialog/RuleDialog';
import type { RuleFormProps } from '../kit/rule-dialog/useRuleForm';
import type { RuleModule, RuleViewOf, UniformRuleRoutes } from '../kit/rule-list/ruleModule';

/** Registers the shims and the clean-up after each test; call once at the top of a test file. */
export function withDomShims(): void {
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
}

/** A client that never retries nor refetches by itself: what a test put in stays. */
export const testQueryClient = () => new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });

export function renderWithProviders(ui: ReactNode, queryClient: QueryClient): void {
  render(
    <MantineProvider env="test">
      <QueryClientProvider client={queryClient}>{ui}</QueryClientProvider>
    </MantineProvider>,
  );
}

/** Every call answers `answer`; the spy shows what was sent. */
export function stubFetch(answer: unknown = { ret: 0, key: 'k1', msg: '' }) {
  const spy = vi.fn((_url: string, _init?: RequestInit) => Promise.resolve(new Response(JSON.stringify(answer))));
  vi.stubGlobal('fetch', spy);
  return spy;
}

/**
 * Clicks `buttonTestId` and answers the body of the first request that went out, once it did,
 * after checking it went to a URL containing `path`, with `method` when one is given.
 */
export async function sentOnClick<T = unknown>(fetchSpy: ReturnType<typeof stubFetch>, buttonTestId: string, path: string, method?: 'POST' | 'PUT'): Promise<T> {
  fireEvent.click(await screen.findByTestId(buttonTestId));
  await waitFor(() => expect(fetchSpy).toHaveBeenCalled());
  const [url, init] = fetchSpy.mock.calls[0]!;
  expect(String(url)).toContain(path);
  if (method) expect(init?.method).toBe(method);
  return JSON.parse(String(init?.body)) as T;
}

/** A rule as the list shows it: its own fields, and what the daemon adds (`extra`: the module's figures). */
export function listed<I extends object, X extends object>(rule: I, extra: X) {
  const status: RuleStatus = { state: 'stopped', message: '', since: 0 };
  return { ...rule, key: 'k1', status, created: 0, updated: 0, owner: null, ...extra };
}

/**
 * A module's add/edit dialog with a stubbed fetch: `saved` edits that rule (key k1), null adds one;
 * `prepare` puts what the form reads into the cache first.
 */
export function renderRuleForm<R extends UniformRuleRoutes>(
  rules: RuleModule<R>,
  Form: ComponentType<RuleFormProps<R>>,
  saved: RuleViewOf<R> | null,
  prepare: (queryClient: QueryClient) => void,
) {
  const fetchSpy = stubFetch();
  const queryClient = testQueryClient();
  prepare(queryClient);
  const editing = saved ? { key: saved.key, saved } : { key: null, saved: null };
  renderWithProviders(<RuleDialog rules={rules} editing={editing} onClose={() => undefined} size="xl" Form={Form} />, queryClient);
  return fetchSpy;
}
