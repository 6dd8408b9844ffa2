/** A web rule's Lucky login fold in jsdom: the header field while on, and a link to the Login portal while nobody could sign in. */
import { SECRET_MASK, ZPortalUser } from '@lucky/contracts';
import { fireEvent, screen } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { listed, renderWithProviders, stubFetch, testQueryClient, withDomShims } from '../../testing/dom';
import { portalUsersQuery } from '../portal/queries';
import { emptyAccess, type AccessForm } from './form';
import { PortalLoginFields } from './PortalLoginFields';

withDomShims();

const portalUser = (enable: boolean) => listed(ZPortalUser.parse({ name: 'alice', password: SECRET_MASK, enable }), { sessions: 0, lastLogin: 0 });

/** The fields over a state of their own, with the portal's users as given. */
function renderFields(users: ReturnType<typeof portalUser>[]) {
  stubFetch({ ret: 0, list: users });
  const qc = testQueryClient();
  qc.setQueryData(portalUsersQuery().queryKey, { ret: 0 as const, list: users });
  function Host() {
    const [portal, setPortal] = useState<AccessForm['portal']>(emptyAccess().portal);
    return <PortalLoginFields value={portal} onChange={(patch) => setPortal({ ...portal, ...patch })} errorAt={() => undefined} testId="web-access" />;
  }
  renderWithProviders(<Host />, qc);
}

describe('the Lucky login fold', () => {
  it('shows the user header (Remote-User) once switched on, and the way to the portal while nobody can sign in', async () => {
    renderFields([portalUser(false)]);
    expect(screen.queryByTestId('web-access-portal-header')).toBeNull();
    fireEvent.click(screen.getByTestId('web-access-portal-enable'));
    expect((screen.getByTestId('web-access-portal-header') as HTMLInputElement).value).toBe('Remote-User');
    expect((await screen.findByTestId('web-access-portal-nousers-link')).getAttribute('href')).toBe('#/portal');
  });

  it('says nothing once a portal user is on', () => {
    renderFields([portalUser(true)]);
    fireEvent.click(screen.getByTestId('web-access-portal-enable'));
    expect(screen.getByTestId('web-access-portal-header')).toBeTruthy();
    expect(screen.queryByTestId('web-access-portal-nousers')).toBeNull();
  });
});
