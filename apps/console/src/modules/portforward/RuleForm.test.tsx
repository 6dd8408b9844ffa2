/** The rule form in jsdom: the spec's required fields refused without a call, live port counts, create and edit bodies. */
import { MantineProvider } from '@mantine/core';
import { ZPortforwardConfigure, ZPortforwardRule, type PortforwardRule } from '@lucky/contracts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { pfConfigureQuery } from './queries';
import { RuleFormModal, type Editing } from './RuleForm';

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
  queryClient.setQueryData(pfConfigureQuery().queryKey, { ret: 0 as const, configure: ZPortforwardConfigure.parse({ udpSessionTimeout: 45 }) });
  render(
    <MantineProvider env="test">
      <QueryClientProvider client={queryClient}>
        <RuleFormModal editing={editing} onClose={() => undefined} />
      </QueryClientProvider>
    </MantineProvider>,
  );
  return fetchSpy;
}

const change = (id: string, value: string) => fireEvent.change(screen.getByTestId(id), { target: { value } });
const items = () => screen.queryAllByTestId('pf-form-error-item').map((e) => e.textContent);

describe('RuleFormModal', () => {
  it('refuses a form without type, ports and target before any call (spec section 5)', async () => {
    const fetchSpy = renderForm({ key: null, saved: null });
    change('pf-name', 'x');
    fireEvent.click(await screen.findByTestId('pf-type-tcp'));
    fireEvent.click(screen.getByTestId('pf-type-udp'));
    fireEvent.click(screen.getByTestId('pf-save'));
    await waitFor(() => expect(items()).toEqual(['至少选择一种转发类型', '监听端口不能为空', '目标地址不能为空', '目标端口不能为空']));
    expect(screen.getByTestId('pf-listen-ports').getAttribute('aria-invalid')).toBe('true');
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('counts ports while typing and explains a mismatch', async () => {
    renderForm({ key: null, saved: null });
    change('pf-listen-ports', '8000-8002, 9000');
    expect((await screen.findByTestId('pf-listen-ports-count')).textContent).toBe('✓ 共 4 个端口');
    change('pf-target-ports', '80,81');
    expect(screen.getByTestId('pf-target-ports-count').getAttribute('data-ok')).toBe('false');
    expect(screen.getByTestId('pf-target-ports-count').textContent).toContain('(4 ≠ 2)');
    change('pf-listen-ports', '70000');
    expect(screen.getByTestId('pf-listen-ports-count').textContent).toBe('✗ 端口必须在 1-65535 之间');
  });

  it('creates with blank limits as null', async () => {
    const fetchSpy = renderForm({ key: null, saved: null });
    change('pf-name', 'nas');
    change('pf-listen-ports', '8080');
    change('pf-targets', '192.168.1.10\nnas.lan');
    change('pf-target-ports', '80');
    fireEvent.click(screen.getByTestId('pf-save'));
    await waitFor(() => expect(fetchSpy).toHaveBeenCalled());
    const [url, init] = fetchSpy.mock.calls[0]!;
    expect(String(url)).toContain('/api/portforward/rules');
    expect(init?.method).toBe('POST');
    const body = JSON.parse(String(init?.body)) as PortforwardRule;
    expect(body).toMatchObject({ name: 'nas', types: ['tcp', 'udp'], listenHost: '', listenPorts: '8080', targets: ['192.168.1.10', 'nas.lan'], targetPorts: '80' });
    expect(body.limits.udpSessionTimeout).toBeNull();
  });

  it('edits: unchanged fields go back as they were; the module default shows in blank limits', async () => {
    const saved = ZPortforwardRule.parse({
      name: 'r',
      types: ['tcp4'],
      listenHost: '127.0.0.1',
      listenPorts: '1000-1001',
      targets: ['10.0.0.2'],
      targetPorts: '2000-2001',
      limits: { tcpMaxConnections: 3 },
      filter: { mode: 'blacklist', list: ['10.1.0.0/16'] },
      proxyProtocol: 'v2',
    });
    const fetchSpy = renderForm({ key: 'k1', saved });
    fireEvent.click(await screen.findByTestId('pf-tab-limits'));
    expect((await screen.findByTestId('pf-limit-udpSessionTimeout')).getAttribute('placeholder')).toBe('默认 45');
    fireEvent.click(screen.getByTestId('pf-save'));
    await waitFor(() => expect(fetchSpy).toHaveBeenCalled());
    const [url, init] = fetchSpy.mock.calls[0]!;
    expect(String(url)).toContain('/api/portforward/rules/k1');
    expect(init?.method).toBe('PUT');
    expect(JSON.parse(String(init?.body))).toEqual(saved);
  });
});
