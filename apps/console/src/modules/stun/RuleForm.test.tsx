/** The rule form in jsdom: the channel mode hides and shows the forwarding fields, the protocol the keepalive URL; create and edit bodies. */
import { ZStunConfigure, ZStunRule, type StunRule } from '@lucky/contracts';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { listed, renderRuleForm, sentOnClick, withDomShims } from '../../testing/dom';
import { stunChoicesQuery, stunQueries } from './queries';
import { RuleForm } from './RuleForm';
import { stunRules } from './ruleModule';

withDomShims();

const stun = { publicAddr: null, localPort: null, server: null, lastChange: null, lastCheck: null, changes: 0, mappings: [], connections: 0, sessions: 0, totalConnections: 0, bytesIn: 0, bytesOut: 0, refusedByFilter: 0, refusedByLimit: 0 };

const renderForm = (saved: StunRule | null) =>
  renderRuleForm(stunRules, RuleForm, saved && listed(saved, { stun }), (qc) => {
    qc.setQueryData(stunQueries.configure().queryKey, { ret: 0 as const, configure: ZStunConfigure.parse({ stunServers: ['127.0.0.1:3478'], keepaliveInterval: 45 }) });
    qc.setQueryData(stunChoicesQuery().queryKey, { ret: 0 as const, ddnsTasks: [{ key: 't1', name: 'home', enable: true, provider: 'cloudflare', domains: ['a.example.com'] }], webhookPresets: {} });
  });

const change = (id: string, value: string) => fireEvent.change(screen.getByTestId(id), { target: { value } });
const chooseMode = (label: string) => fireEvent.click(screen.getByTestId('stun-mode').querySelector(`input[value="${label}"]`)!);
const chooseProtocol = (value: string) => fireEvent.click(screen.getByTestId('stun-protocol').querySelector(`input[value="${value}"]`)!);
const items = () => screen.queryAllByTestId('stun-form-error-item').map((e) => e.textContent);

describe('the STUN rule form', () => {
  it('mode decides what shows: target, limits and filter only for forward', async () => {
    renderForm(null);
    await screen.findByTestId('stun-target-host');
    expect(screen.queryByTestId('stun-tab-forward')).not.toBeNull();
    chooseMode('none');
    await waitFor(() => expect(screen.queryByTestId('stun-target-host')).toBeNull());
    expect(screen.queryByTestId('stun-target-port')).toBeNull();
    expect(screen.queryByTestId('stun-tab-forward')).toBeNull();
    chooseMode('forward');
    await screen.findByTestId('stun-target-host');
    fireEvent.click(screen.getByTestId('stun-tab-forward'));
    await screen.findByTestId('stun-limit-tcpMaxConnections');
    expect(screen.getByTestId('stun-filter-mode')).not.toBeNull();
  });

  it('the keepalive URL shows for TCP only; the module defaults show as placeholders', async () => {
    renderForm(null);
    fireEvent.click(await screen.findByTestId('stun-tab-stun'));
    expect((await screen.findByTestId('stun-servers')).getAttribute('placeholder')).toBe('127.0.0.1:3478');
    expect(screen.getByTestId('stun-keepalive-interval').getAttribute('placeholder')).toBe('默认 45');
    expect(screen.queryByTestId('stun-keepalive-url')).toBeNull();
    fireEvent.click(screen.getByTestId('stun-tab-basic'));
    chooseProtocol('tcp');
    fireEvent.click(screen.getByTestId('stun-tab-stun'));
    expect((await screen.findByTestId('stun-keepalive-url')).getAttribute('placeholder')).toBe('http://www.baidu.com/');
  });

  it('refuses a forward rule without target before any call', async () => {
    const fetchSpy = renderForm(null);
    await screen.findByTestId('stun-name');
    change('stun-name', 'x');
    fireEvent.click(screen.getByTestId('stun-save'));
    await waitFor(() => expect(items()).toEqual(['目标地址不能为空', '目标端口：端口必须在 1-65535 之间']));
    expect(screen.getByTestId('stun-target-host').getAttribute('aria-invalid')).toBe('true');
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('creates a mapping-only rule: no target asked for', async () => {
    const fetchSpy = renderForm(null);
    await screen.findByTestId('stun-name');
    change('stun-name', 'router');
    chooseMode('none');
    fireEvent.click(screen.getByTestId('stun-tab-stun'));
    await screen.findByTestId('stun-servers');
    change('stun-servers', '127.0.0.1:3478');
    const body = await sentOnClick<StunRule>(fetchSpy, 'stun-save', '/api/stun/rules', 'POST');
    expect(body).toMatchObject({ name: 'router', mode: 'none', protocol: 'udp', localPort: 0, stunServers: ['127.0.0.1:3478'], keepaliveInterval: null, filter: { mode: 'off', list: [] } });
    expect(ZStunRule.safeParse(body).success).toBe(true);
  });

  it('edits: unchanged fields go back as they were, DDNS tasks included', async () => {
    const saved = ZStunRule.parse({ name: 'r', protocol: 'tcp', localPort: 5000, targetHost: '127.0.0.1', targetPort: 80, stunServers: ['127.0.0.1:3478'], ddnsTasks: ['t1'], upnp: { enable: true } });
    const fetchSpy = renderForm(saved);
    expect(await sentOnClick(fetchSpy, 'stun-save', '/api/stun/rules/k1', 'PUT')).toEqual(saved);
  });
});
