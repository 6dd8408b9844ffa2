/** The rule form in jsdom: the spec's required fields refused without a call, live port counts, create and edit bodies. */
import { ZPortforwardConfigure, ZPortforwardRule, type PortforwardRule } from '@lucky/contracts';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { listed, renderRuleForm, sentOnClick, withDomShims } from '../../testing/dom';
import { pfQueries } from './queries';
import { RuleForm } from './RuleForm';
import { pfRules } from './ruleModule';

withDomShims();

const stats = { tcpConnections: 0, udpSessions: 0, bytesIn: 0, bytesOut: 0, totalConnections: 0, refusedByLimit: 0, refusedByFilter: 0, listeners: 0, listenersWanted: 0 };

const renderForm = (saved: PortforwardRule | null) =>
  renderRuleForm(pfRules, RuleForm, saved && listed(saved, { stats }), (qc) =>
    qc.setQueryData(pfQueries.configure().queryKey, { ret: 0 as const, configure: ZPortforwardConfigure.parse({ udpSessionTimeout: 45 }) }),
  );

const change = (id: string, value: string) => fireEvent.change(screen.getByTestId(id), { target: { value } });
const items = () => screen.queryAllByTestId('pf-form-error-item').map((e) => e.textContent);

describe('the rule form', () => {
  it('refuses a form without type, ports and target before any call (spec section 5)', async () => {
    const fetchSpy = renderForm(null);
    change('pf-name', 'x');
    fireEvent.click(await screen.findByTestId('pf-type-tcp'));
    fireEvent.click(screen.getByTestId('pf-type-udp'));
    fireEvent.click(screen.getByTestId('pf-save'));
    await waitFor(() => expect(items()).toEqual(['至少选择一种转发类型', '监听端口不能为空', '目标地址不能为空', '目标端口不能为空']));
    expect(screen.getByTestId('pf-listen-ports').getAttribute('aria-invalid')).toBe('true');
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('counts ports while typing and explains a mismatch', async () => {
    renderForm(null);
    change('pf-listen-ports', '8000-8002, 9000');
    expect((await screen.findByTestId('pf-listen-ports-count')).textContent).toBe('✓ 共 4 个端口');
    change('pf-target-ports', '80,81');
    expect(screen.getByTestId('pf-target-ports-count').getAttribute('data-ok')).toBe('false');
    expect(screen.getByTestId('pf-target-ports-count').textContent).toContain('(4 ≠ 2)');
    change('pf-listen-ports', '70000');
    expect(screen.getByTestId('pf-listen-ports-count').textContent).toBe('✗ 端口必须在 1-65535 之间');
  });

  it('creates with blank limits as null', async () => {
    const fetchSpy = renderForm(null);
    change('pf-name', 'nas');
    change('pf-listen-ports', '8080');
    change('pf-targets', '192.168.1.10\nnas.lan');
    change('pf-target-ports', '80');
    const body = await sentOnClick<PortforwardRule>(fetchSpy, 'pf-save', '/api/portforward/rules', 'POST');
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
    const fetchSpy = renderForm(saved);
    fireEvent.click(await screen.findByTestId('pf-tab-limits'));
    expect((await screen.findByTestId('pf-limit-udpSessionTimeout')).getAttribute('placeholder')).toBe('默认 45');
    expect(await sentOnClick(fetchSpy, 'pf-save', '/api/portforward/rules/k1', 'PUT')).toEqual(saved);
  });
});
