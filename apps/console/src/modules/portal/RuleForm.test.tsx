/**
 * The portal user form in jsdom: a new user with the web rules picked by name; 2FA set up through the
 * daemon (the secret goes into the user only once a code matched); a stored user's masks sent back.
 */
import { SECRET_MASK, ZPortalUser, ZWebRule, type PortalUser } from '@lucky/contracts';
import type { QueryClient } from '@tanstack/react-query';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { listed, renderRuleForm, sentOnClick, withDomShims } from '../../testing/dom';
import { webRulesQuery } from './queries';
import { RuleForm } from './RuleForm';
import { portalRules } from './ruleModule';

withDomShims();

const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DP';
const webRule = (key: string, name: string) => ({ ...listed(ZWebRule.parse({ name, port: 1, portal: { enable: true } }), {}), key });
const withWebRules = (qc: QueryClient) => qc.setQueryData(webRulesQuery().queryKey, { ret: 0 as const, list: [webRule('w1', 'site'), webRule('w2', 'nas')] } as never);
const renderForm = (saved: PortalUser | null) => renderRuleForm(portalRules, RuleForm, saved && listed(saved, { sessions: 0, lastLogin: 0 }), withWebRules);
const change = (id: string, value: string) => fireEvent.change(screen.getByTestId(id), { target: { value } });
const json = (body: unknown) => Promise.resolve(new Response(JSON.stringify(body)));

/** Answers by path: the TOTP routes as the daemon would, anything else as a save. */
function daemon(fetchSpy: ReturnType<typeof renderForm>, valid: () => boolean) {
  fetchSpy.mockImplementation((url: string) => {
    if (url.includes('/api/portal/totp/check')) return json({ ret: 0, valid: valid() });
    if (url.includes('/api/portal/totp')) return json({ ret: 0, secret: SECRET, otpauthUrl: `otpauth://totp/Lucky:bob?secret=${SECRET}`, qrcode: 'data:image/png;base64,AAAA' });
    return json({ ret: 0, key: 'k1', msg: '' });
  });
}
const bodyOf = (fetchSpy: ReturnType<typeof renderForm>, path: string) => {
  const call = fetchSpy.mock.calls.find(([url]) => String(url).includes(path));
  return call && (JSON.parse(String(call[1]?.body)) as unknown);
};

describe('the portal user form', () => {
  it('creates a user with a password and the web rules picked by name', async () => {
    const fetchSpy = renderForm(null);
    change('portal-name', 'bob');
    change('portal-password', 'secret pw');
    fireEvent.click(screen.getByTestId('portal-rules'));
    fireEvent.click(await screen.findByText('nas'));
    change('portal-note', 'the NAS only');
    expect(await sentOnClick(fetchSpy, 'portal-save', '/api/portal/rules', 'POST')).toEqual(ZPortalUser.parse({ name: 'bob', password: 'secret pw', rules: ['w2'], note: 'the NAS only' }));
  });

  it('refuses a new user without a password before any call', async () => {
    const fetchSpy = renderForm(null);
    change('portal-name', 'bob');
    fireEvent.click(screen.getByTestId('portal-save'));
    await waitFor(() => expect(screen.getByTestId('portal-password').getAttribute('aria-invalid')).toBe('true'));
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('sets up 2FA: QR and secret shown, a wrong code refused, a right one puts the secret in the user', async () => {
    const fetchSpy = renderForm(null);
    // No valid name yet: the daemon names the secret after the user.
    expect(screen.getByTestId('portal-totp-start').hasAttribute('disabled')).toBe(true);
    change('portal-name', 'bob');
    change('portal-password', 'pw');
    let valid = false;
    daemon(fetchSpy, () => valid);
    fireEvent.click(screen.getByTestId('portal-totp-start'));
    expect((await screen.findByTestId('portal-totp-qr')).getAttribute('src')).toBe('data:image/png;base64,AAAA');
    expect(screen.getByTestId('portal-totp-secret').textContent).toBe(SECRET);
    expect(bodyOf(fetchSpy, '/api/portal/totp')).toEqual({ name: 'bob' });

    change('portal-totp-code', '000 000');
    fireEvent.click(screen.getByTestId('portal-totp-check'));
    expect((await screen.findByTestId('portal-totp-error')).textContent).toContain('验证码不正确');
    expect(bodyOf(fetchSpy, '/api/portal/totp/check')).toEqual({ secret: SECRET, code: '000000' });
    expect(screen.getByTestId('portal-totp-state').dataset.state).toBe('off');

    valid = true;
    change('portal-totp-code', '123456');
    // Enter checks the code; it does not save the user.
    fireEvent.keyDown(screen.getByTestId('portal-totp-code'), { key: 'Enter' });
    await waitFor(() => expect(screen.queryByTestId('portal-totp-enrol')).toBeNull());
    expect(screen.getByTestId('portal-totp-state').dataset.state).toBe('new');
    expect(fetchSpy.mock.calls.some(([url]) => String(url).includes('/api/portal/rules'))).toBe(false);

    fireEvent.click(screen.getByTestId('portal-save'));
    await waitFor(() => expect(bodyOf(fetchSpy, '/api/portal/rules')).toMatchObject({ name: 'bob', totp: SECRET }));
  });

  it('edits: the masks go back unchanged', async () => {
    const saved = ZPortalUser.parse({ name: 'alice', password: SECRET_MASK, totp: SECRET_MASK, rules: ['w1'], note: 'n' });
    const fetchSpy = renderForm(saved);
    expect(screen.getByTestId('portal-totp-state').dataset.state).toBe('on');
    expect(await sentOnClick(fetchSpy, 'portal-save', '/api/portal/rules/k1', 'PUT')).toEqual(saved);
  });

  it('"Remove 2FA" sends an empty secret and keeps the password', async () => {
    const saved = ZPortalUser.parse({ name: 'alice', password: SECRET_MASK, totp: SECRET_MASK });
    const fetchSpy = renderForm(saved);
    fireEvent.click(screen.getByTestId('portal-totp-remove'));
    expect(screen.getByTestId('portal-totp-state').dataset.state).toBe('off');
    expect(screen.queryByTestId('portal-totp-remove')).toBeNull();
    expect(await sentOnClick(fetchSpy, 'portal-save', '/api/portal/rules/k1', 'PUT')).toMatchObject({ password: SECRET_MASK, totp: '' });
  });
});
