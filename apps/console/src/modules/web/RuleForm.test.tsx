/**
 * The web rule form in jsdom: forward auth switched on without its authorizer is refused before any
 * call, on the access tab with its fold opened; the limits go out with the body size in bytes.
 */
import { ZWebRule, type WebRule } from '@lucky/contracts';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { listed, renderRuleForm, sentOnClick, withDomShims } from '../../testing/dom';
import { RuleForm } from './RuleForm';
import { webRules } from './ruleModule';

withDomShims();

const figures = { figures: { requests: 0, bytesIn: 0, bytesOut: 0, connections: 0, codes: {} }, firewall: '' };
const renderForm = (saved: WebRule | null) => renderRuleForm(webRules, RuleForm, saved && (listed(saved, figures) as never), () => undefined);
const change = (id: string, value: string) => fireEvent.change(screen.getByTestId(id), { target: { value } });
const selected = (id: string) => screen.getByTestId(id).getAttribute('aria-selected');
const expanded = (id: string) => screen.getByTestId(id).getAttribute('aria-expanded');

describe('the web rule form', () => {
  it('refuses forward auth without its authorizer before any call: the access tab and the fold open on the field', async () => {
    const fetchSpy = renderForm(ZWebRule.parse({ name: 'site', port: 18080 }));
    fireEvent.click(await screen.findByTestId('web-tab-access'));
    fireEvent.click(screen.getByTestId('web-access-forwardAuth'));
    expect(screen.queryByTestId('web-access-forwardauth-url')).toBeNull();
    fireEvent.click(screen.getByTestId('web-access-forwardauth-enable'));
    expect((screen.getByTestId('web-access-forwardauth-headers') as HTMLTextAreaElement).value).toBe('Remote-User\nRemote-Groups\nRemote-Email\nRemote-Name');
    expect((screen.getByTestId('web-access-forwardauth-timeout') as HTMLInputElement).value).toBe('10');
    // Closed and left for another tab: the save brings both back.
    fireEvent.click(screen.getByTestId('web-access-forwardAuth'));
    fireEvent.click(screen.getByTestId('web-tab-basic'));
    fireEvent.click(screen.getByTestId('web-save'));
    await waitFor(() => expect(selected('web-tab-access')).toBe('true'));
    expect(expanded('web-access-forwardAuth')).toBe('true');
    expect(screen.getByTestId('web-access-forwardauth-url').getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByTestId('web-form-error').textContent).toContain('开启转发认证需要填写认证服务地址');
    expect(fetchSpy).not.toHaveBeenCalled();
    change('web-access-forwardauth-url', 'http://authelia:9091/api/authz/forward-auth');
    change('web-access-forwardauth-headers', 'Remote-User\nRemote-Email');
    fireEvent.click(screen.getByTestId('web-access-forwardauth-skiptls'));
    const body = await sentOnClick<WebRule>(fetchSpy, 'web-save', '/api/web/rules/k1', 'PUT');
    expect(body.forwardAuth).toEqual({ enable: true, url: 'http://authelia:9091/api/authz/forward-auth', copyHeaders: ['Remote-User', 'Remote-Email'], timeoutSeconds: 10, skipTlsVerify: true });
  });

  it('a sub rule of its own: the dialog refuses forward auth without its authorizer, with its fold opened', async () => {
    const fetchSpy = renderForm(ZWebRule.parse({ name: 'site', port: 18080 }));
    fireEvent.click(await screen.findByTestId('web-tab-subrules'));
    fireEvent.click(screen.getByTestId('web-sub-add'));
    await screen.findByTestId('web-sub-domains');
    change('web-sub-domains', 'app.example.com');
    change('web-sub-service-targets', 'http://127.0.0.1:3000');
    fireEvent.click(screen.getByTestId('web-sub-access-forwardAuth'));
    fireEvent.click(screen.getByTestId('web-sub-access-forwardauth-enable'));
    fireEvent.click(screen.getByTestId('web-sub-access-forwardAuth'));
    fireEvent.click(screen.getByTestId('web-sub-done'));
    await waitFor(() => expect(expanded('web-sub-access-forwardAuth')).toBe('true'));
    expect(screen.getByTestId('web-sub-error').textContent).toContain('开启转发认证需要填写认证服务地址');
    change('web-sub-access-forwardauth-url', 'http://127.0.0.1:4180/oauth2/auth');
    change('web-sub-access-forwardauth-timeout', '3');
    fireEvent.click(screen.getByTestId('web-sub-done'));
    await waitFor(() => expect(screen.queryByTestId('web-sub-done')).toBeNull());
    const body = await sentOnClick<WebRule>(fetchSpy, 'web-save', '/api/web/rules/k1', 'PUT');
    expect(body.subRules[0]!.forwardAuth).toMatchObject({ enable: true, url: 'http://127.0.0.1:4180/oauth2/auth', timeoutSeconds: 3 });
    expect(body.forwardAuth.enable).toBe(false);
  });

  it('sends the limits, the body size in bytes of the unit picked', async () => {
    const saved = ZWebRule.parse({ name: 'site', port: 18080, limits: { maxBodyBytes: 5e6 } });
    const fetchSpy = renderForm(saved);
    fireEvent.click(await screen.findByTestId('web-tab-access'));
    expect((screen.getByTestId('web-limits-maxbody') as HTMLInputElement).value).toBe('5');
    expect((screen.getByTestId('web-limits-maxbody-unit') as HTMLInputElement).value).toBe('MB');
    change('web-limits-rate', '0.5');
    change('web-limits-burst', '4');
    change('web-limits-connections', '16');
    change('web-limits-maxbody', '1.5');
    fireEvent.click(screen.getByTestId('web-limits-maxbody-unit'));
    fireEvent.click(await screen.findByRole('option', { name: 'GB' }));
    await waitFor(() => expect((screen.getByTestId('web-limits-maxbody-unit') as HTMLInputElement).value).toBe('GB'));
    const body = await sentOnClick<WebRule>(fetchSpy, 'web-save', '/api/web/rules/k1', 'PUT');
    expect(body.limits).toEqual({ rate: 0.5, burst: 4, connections: 16, maxBodyBytes: 1.5e9 });
    expect(body).toEqual({ ...saved, limits: body.limits });
  });

  it('names a bad limit on the access tab', async () => {
    const fetchSpy = renderForm(ZWebRule.parse({ name: 'site', port: 18080 }));
    fireEvent.click(await screen.findByTestId('web-tab-access'));
    change('web-limits-connections', '100001');
    fireEvent.click(screen.getByTestId('web-tab-basic'));
    fireEvent.click(screen.getByTestId('web-save'));
    await waitFor(() => expect(selected('web-tab-access')).toBe('true'));
    expect(screen.getByTestId('web-limits-connections').getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByTestId('web-form-error').textContent).toContain('并发连接数不能大于 100000');
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});
