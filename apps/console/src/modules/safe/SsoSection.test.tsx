/** The single sign-on section in jsdom: what a save sends, the daemon's refusal, the groups' rules, the redirect URIs. */
import { SECRET_MASK, ZOidcSettings, ZWebRule, type OidcSettings, type WebRuleInput } from '@lucky/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { listed, renderWithProviders, sentOnClick, stubFetch, testQueryClient, withDomShims } from '../../testing/dom';
import { webRulesQuery } from '../portal/queries';
import { oidcQuery } from './queries';
import { SsoSection } from './SsoSection';

withDomShims();

const SAVED = ZOidcSettings.parse({ enable: true, issuer: 'https://auth.example.com/application/o/lucky/', clientId: 'lucky', clientSecret: SECRET_MASK, label: 'Authentik' });
const webRule = (key: string, name: string, over: Partial<WebRuleInput> = {}) => ({ ...listed(ZWebRule.parse({ name, port: 443, protocol: 'https', ...over }), { figures: {}, firewall: '' }), key });
const RULES = [
  webRule('w1', 'Photos', { subRules: [{ domains: ['photos.example.com'], service: { type: 'close' }, portal: { enable: true } }] }),
  webRule('w2', 'Wiki'),
];

function renderSection(answer: unknown = { ret: 0, msg: 'saved' }) {
  const fetchSpy = stubFetch(answer);
  const qc = testQueryClient();
  qc.setQueryData(oidcQuery().queryKey, { ret: 0 as const, oidc: SAVED });
  qc.setQueryData(webRulesQuery().queryKey, { ret: 0 as const, list: RULES } as never);
  renderWithProviders(<SsoSection />, qc);
  return fetchSpy;
}

const type = (testid: string, value: string) => fireEvent.change(screen.getByTestId(testid), { target: { value } });

describe('the single sign-on section', () => {
  it('shows a stored secret as the mask and sends the mask back, which keeps it', async () => {
    const fetchSpy = renderSection();
    expect((await screen.findByTestId<HTMLInputElement>('safe-sso-clientSecret')).value).toBe(SECRET_MASK);
    expect(screen.getByTestId<HTMLInputElement>('safe-sso-enable').checked).toBe(true);
    // Typed as a person types: the tags input takes only changes made while it has the focus.
    const groups = screen.getByTestId('safe-sso-adminGroups');
    groups.focus();
    type('safe-sso-adminGroups', 'lucky-admins');
    fireEvent.keyDown(groups, { key: 'Enter' });
    const body = await sentOnClick<OidcSettings>(fetchSpy, 'safe-sso-save', '/api/safe/oidc', 'PUT');
    expect(body).toEqual({ ...SAVED, adminGroups: ['lucky-admins'] });
  });

  it("shows the daemon's refusal (a provider it could not read) as the form's error", async () => {
    renderSection({ ret: 6, msg: 'the OpenID configuration of https://auth.example.com/ could not be read: ENOTFOUND' });
    fireEvent.click(await screen.findByTestId('safe-sso-save'));
    expect((await screen.findByTestId('safe-sso-error')).textContent).toContain('could not be read: ENOTFOUND');
  });

  it('asks for the secret again when the issuer changes, sending nothing', async () => {
    const fetchSpy = renderSection();
    type('safe-sso-issuer', 'https://id.example.org/realms/home');
    fireEvent.click(screen.getByTestId('safe-sso-save'));
    expect((await screen.findByTestId('safe-sso-error')).textContent).toContain('客户端密钥');
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('gives a group web rules picked by name and sends their keys', async () => {
    const fetchSpy = renderSection();
    fireEvent.click(await screen.findByTestId('safe-sso-portalGroups-add'));
    type('safe-sso-portalGroups-group', 'family');
    fireEvent.click(screen.getByTestId('safe-sso-portalGroups-rules'));
    expect(await screen.findByText('Wiki（未开启登录）')).toBeTruthy();
    fireEvent.click(screen.getByText('Photos'));
    const body = await sentOnClick<OidcSettings>(fetchSpy, 'safe-sso-save', '/api/safe/oidc', 'PUT');
    expect(body.portalGroups).toEqual([{ group: 'family', rules: ['w1'] }]);
  });

  it('a group taken out is not sent', async () => {
    const fetchSpy = renderSection();
    fireEvent.click(await screen.findByTestId('safe-sso-portalGroups-add'));
    fireEvent.click(screen.getByTestId('safe-sso-portalGroups-remove'));
    expect(screen.queryByTestId('safe-sso-portalGroups-row')).toBeNull();
    const body = await sentOnClick<OidcSettings>(fetchSpy, 'safe-sso-save', '/api/safe/oidc', 'PUT');
    expect(body.portalGroups).toEqual([]);
  });

  it("shows the console's redirect URI under this page's base, and the portal's of each site with Lucky login", async () => {
    renderSection();
    const box = await screen.findByTestId('safe-sso-redirects');
    expect(within(box).getByTestId('safe-sso-redirect-console').textContent).toBe(new URL('api/oidc/callback', document.baseURI).href);
    await waitFor(() => expect(within(box).getAllByTestId('safe-sso-redirect-portal').map((e) => e.textContent)).toEqual(['https://photos.example.com/.lucky/sso/callback']));
    expect(box.textContent).toContain('https://<site>/.lucky/sso/callback');
  });
});
