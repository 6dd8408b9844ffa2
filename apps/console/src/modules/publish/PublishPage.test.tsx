/** The Publish screen in jsdom: a card's lights, hint, address and parts; the form's body; the folded ports opening on a problem. */
import { ZPublishRule, type PublishCheck, type publishRoutes, type PublishRule, type RuleOwner } from '@lucky/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { RuleViewOf } from '../../kit/rule-list/ruleModule';
import { listed, renderRuleForm, renderWithProviders, sentOnClick, stubFetch, testQueryClient, withDomShims } from '../../testing/dom';
import { PublishPage } from './PublishPage';
import { ddnsTasksQuery, publishQueries } from './queries';
import { RuleForm } from './RuleForm';
import { publishRules } from './ruleModule';

withDomShims();

const rule = ZPublishRule.parse({ name: 'Home Assistant', target: 'http://192.168.1.5:8123', names: ['ha.example.com'], dnsTask: 't1', mapRouter: false });
const check = (id: PublishCheck['id'], state: PublishCheck['state'], message: string, hint = '', checked = 1): PublishCheck => ({ id, state, message, hint, checked });
const CHECKS = [
  check('dns', 'ok', 'ha.example.com resolve to 203.0.113.7'),
  check('certificate', 'pending', 'the certificate is being ordered', 'never shown: not failed'),
  check('web', 'ok', 'the web rule runs'),
  check('target', 'failed', 'the target does not answer: ECONNREFUSED', 'check that it is up'),
  check('router', 'pending', 'not looked at yet', '', 0),
];
type View = RuleViewOf<typeof publishRoutes>;
const service = (over: Partial<View> = {}): View => ({ ...view(), ...over });
const view = (): View => ({
  ...listed(rule, {
    url: 'https://ha.example.com/',
    publicAddress: '203.0.113.7',
    publicPort: 443,
    parts: { ddns: 'd1', web: 'w1', certificate: 'publish-ha', stun: null },
    checks: CHECKS,
  }),
  status: { state: 'error' as const, message: 'the target does not answer: ECONNREFUSED', since: 0 },
});

function renderPage(list: View[]) {
  stubFetch({ ret: 0, Modules: ['publish'] });
  const qc = testQueryClient();
  qc.setQueryData(publishQueries.list().queryKey, { ret: 0 as const, list });
  renderWithProviders(<PublishPage />, qc);
}

describe('a service card', () => {
  it('shows a light per check, the message, and the hint under the failed one only', async () => {
    renderPage([service()]);
    const card = await screen.findByTestId('publish-card');
    const rows = within(card).getAllByTestId('publish-check');
    expect(rows.map((r) => r.dataset.check)).toEqual(['dns', 'certificate', 'web', 'target', 'router']);
    expect(rows.map((r) => within(r).getByTestId('publish-light').dataset.color)).toEqual(['green', 'yellow', 'green', 'red', 'gray']);
    expect(within(rows[3]!).getByTestId('publish-check-message').textContent).toBe('the target does not answer: ECONNREFUSED');
    expect(within(card).getAllByTestId('publish-check-hint').map((h) => h.textContent)).toEqual(['→ check that it is up']);
    // The failed check says why the status is an error: not said twice.
    expect(within(card).getByTestId('publish-status').dataset.state).toBe('error');
    expect(within(card).queryByTestId('publish-status-message')).toBeNull();
  });

  it('shows the address with its copy button and open link, and links to the parts in their modules', async () => {
    renderPage([service()]);
    const card = await screen.findByTestId('publish-card');
    expect(within(card).getByTestId('publish-url').textContent).toBe('https://ha.example.com/');
    expect(within(card).getByTestId('publish-copy').textContent).toBe('复制');
    expect(within(card).getByTestId('publish-open').getAttribute('href')).toBe('https://ha.example.com/');
    expect(within(card).getByTestId('publish-part-ddns').getAttribute('href')).toBe('#/ddns');
    expect(within(card).getByTestId('publish-part-web').getAttribute('href')).toBe('#/web');
    expect(within(card).getByTestId('publish-part-certificate').textContent).toBe('证书 publish-ha');
  });

  it('a service that has not run yet says so, and why it stopped', async () => {
    renderPage([service({ url: '', publicAddress: '', checks: [], parts: { ddns: null, web: null, certificate: null, stun: null }, status: { state: 'error', message: 'could not create the DDNS task: …', since: 0 } })]);
    const card = await screen.findByTestId('publish-card');
    expect(within(card).getByTestId('publish-no-checks')).toBeTruthy();
    expect(within(card).getByTestId('publish-status-message').textContent).toBe('could not create the DDNS task: …');
    expect(within(card).getByTestId('publish-url').dataset.url).toBe('');
    expect(within(card).queryByTestId('publish-parts')).toBeNull();
  });

  it('a service reached by STUN shows its STUN light and links its STUN rule', async () => {
    const checks = [...CHECKS.slice(0, 4), check('stun', 'ok', 'STUN rule ha holds public 203.0.113.7:40123 open')];
    renderPage([service({ reach: 'stun', url: 'https://ha.example.com:40123/', publicPort: 40123, checks, parts: { ddns: 'd1', web: 'w1', certificate: 'publish-ha', stun: 's1' } })]);
    const card = await screen.findByTestId('publish-card');
    const light = within(card).getAllByTestId('publish-check').find((c) => c.dataset.check === 'stun')!;
    expect(light.textContent).toContain('STUN 映射');
    expect(within(card).getByTestId('publish-part-stun').getAttribute('href')).toBe('#/stun');
    expect(within(card).getByTestId('publish-open').getAttribute('href')).toBe('https://ha.example.com:40123/');
  });
});

const owner: RuleOwner = { module: 'publish', key: 'p9', name: 'other' };
/** What the picker reads of a DDNS task. */
const task = (key: string, name: string, own: RuleOwner | null = null) => ({ key, name, provider: 'rfc2136', enable: true, domains: [`${name}.example.com`], owner: own });

const renderForm = (saved: PublishRule | null) =>
  renderRuleForm(publishRules, RuleForm, saved && service(), (qc) =>
    qc.setQueryData(ddnsTasksQuery().queryKey, { ret: 0 as const, list: [task('t1', 'zone'), task('t2', 'made', owner)] } as never),
  );

describe('the service form', () => {
  it('offers the user\'s own DDNS tasks and sends the service', async () => {
    const fetchSpy = renderForm(null);
    fireEvent.change(await screen.findByTestId('publish-name'), { target: { value: 'Home Assistant' } });
    fireEvent.change(screen.getByTestId('publish-target'), { target: { value: 'http://192.168.1.5:8123' } });
    fireEvent.change(screen.getByTestId('publish-names'), { target: { value: 'ha.example.com\n' } });
    fireEvent.click(screen.getByTestId('publish-dnstask'));
    expect(await screen.findByText('zone (rfc2136)')).toBeTruthy();
    // Another service's own task is not a template.
    expect(screen.queryByText('made (rfc2136)')).toBeNull();
    fireEvent.click(screen.getByText('zone (rfc2136)'));
    fireEvent.click(screen.getByTestId('publish-maprouter'));
    const body = await sentOnClick<PublishRule>(fetchSpy, 'publish-save', '/api/publish/rules', 'POST');
    expect(body).toEqual({ ...ZPublishRule.parse({ name: 'Home Assistant', target: 'http://192.168.1.5:8123', names: ['ha.example.com'], dnsTask: 't1' }), mapRouter: false });
  });

  it('opens the folded ports by itself when one of them is wrong', async () => {
    const fetchSpy = renderForm(rule);
    const fold = await screen.findByTestId('publish-advanced');
    expect(fold.getAttribute('aria-expanded')).toBe('false');
    fireEvent.change(screen.getByTestId('publish-https-port'), { target: { value: '' } });
    fireEvent.click(screen.getByTestId('publish-save'));
    await waitFor(() => expect(fold.getAttribute('aria-expanded')).toBe('true'));
    expect((await screen.findByTestId('publish-form-error')).textContent).toContain('本机 HTTPS 端口');
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});
