/** The Login portal screen in jsdom: a user's row (2FA, rules by name, sessions, last sign-in); the sessions card and its "End". */
import { SECRET_MASK, ZPortalUser, ZWebRule, type PortalSession } from '@lucky/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { listed, renderWithProviders, testQueryClient, withDomShims } from '../../testing/dom';
import { PortalPage } from './PortalPage';
import { portalQueries, portalSessionsQuery, webRulesQuery } from './queries';

withDomShims();

const user = (key: string, name: string, over: object, extra: { sessions: number; lastLogin: number }) => ({ ...listed(ZPortalUser.parse({ name, password: SECRET_MASK, ...over }), extra), key });
const USERS = [user('u1', 'alice', { totp: SECRET_MASK, rules: ['w1', 'gone'] }, { sessions: 2, lastLogin: Date.UTC(2026, 0, 2) }), user('u2', 'bob', {}, { sessions: 0, lastLogin: 0 })];
const session = (id: string, who: string): PortalSession => ({ id, user: who, address: '192.0.2.7', agent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0', created: 1, lastSeen: 2, expires: 3 });
const json = (body: unknown) => Promise.resolve(new Response(JSON.stringify(body)));

function renderPage(sessions: PortalSession[]) {
  let left = sessions;
  const fetchSpy = vi.fn((url: string, init?: RequestInit) => {
    if (url.includes('/api/modules/list')) return json({ ret: 0, Modules: ['portal'] });
    if (init?.method === 'DELETE') {
      left = left.filter((s) => !url.includes(s.id));
      return json({ ret: 0, msg: 'the session was ended' });
    }
    if (url.includes('/api/portal/sessions')) return json({ ret: 0, list: left });
    if (url.includes('/api/portal/rules')) return json({ ret: 0, list: USERS });
    return json({ ret: 0 });
  });
  vi.stubGlobal('fetch', fetchSpy);
  const qc = testQueryClient();
  qc.setQueryData(portalQueries.list().queryKey, { ret: 0 as const, list: USERS });
  qc.setQueryData(portalSessionsQuery().queryKey, { ret: 0 as const, list: sessions });
  qc.setQueryData(webRulesQuery().queryKey, { ret: 0 as const, list: [{ ...listed(ZWebRule.parse({ name: 'site', port: 1 }), {}), key: 'w1' }] } as never);
  renderWithProviders(<PortalPage />, qc);
  return fetchSpy;
}

describe('the portal user list', () => {
  it('shows 2FA, the rules by name (a deleted one by key), sessions and the last sign-in', async () => {
    renderPage([]);
    const [alice, bob] = await screen.findAllByTestId('portal-row');
    expect(within(alice!).getByTestId('portal-row-totp').dataset.state).toBe('on');
    expect(within(bob!).getByTestId('portal-row-totp').dataset.state).toBe('off');
    expect(within(alice!).getByTestId('portal-row-rules').textContent).toBe('site' + 'gone（不存在）');
    expect(within(bob!).getByTestId('portal-row-rules').textContent).toBe('所有需要登录的规则');
    expect(within(alice!).getByTestId('portal-row-sessions').dataset.value).toBe('2');
    expect(within(alice!).getByTestId('portal-row-lastlogin').textContent).toMatch(/^2026\/1\/[23] /);
    expect(within(bob!).getByTestId('portal-row-lastlogin').textContent).toBe('从未登录');
  });
});

describe('the sessions card', () => {
  it('lists the sessions and ends one: DELETE by id, then the list is read again', async () => {
    const fetchSpy = renderPage([session('00000000000000aa', 'alice'), session('00000000000000bb', 'alice')]);
    const rows = await screen.findAllByTestId('portal-session-row');
    expect(rows.map((r) => r.dataset.id)).toEqual(['00000000000000aa', '00000000000000bb']);
    expect(within(rows[0]!).getByText('Firefox/130 · Linux')).toBeTruthy();
    fireEvent.click(within(rows[0]!).getByTestId('portal-session-end'));
    await waitFor(() => expect(screen.getAllByTestId('portal-session-row').map((r) => r.dataset.id)).toEqual(['00000000000000bb']));
    const ended = fetchSpy.mock.calls.find(([, init]) => init?.method === 'DELETE');
    expect(String(ended?.[0])).toContain('/api/portal/sessions/00000000000000aa');
  });

  it('says when there is none', async () => {
    renderPage([]);
    expect(await screen.findByTestId('portal-sessions-empty')).toBeTruthy();
  });
});
