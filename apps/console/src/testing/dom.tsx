/** What component tests in jsdom share: the browser parts Mantine measures with, providers, a stubbed fetch. */
import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeAll, vi } from 'vitest';

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
