/** The storage users in jsdom: a user's public keys (SFTP) checked line by line as typed, counted, and sent with the user. */
import { SECRET_MASK, ZStorage, ZStorageConfigure, type StorageConfigure } from '@lucky/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { listed, renderWithProviders, stubFetch, testQueryClient, withDomShims } from '../../testing/dom';
import { storageQueries } from './queries';
import { UsersSection } from './UsersSection';

withDomShims();

const ED25519 = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBV3Tgu2DOrAQbIdX5GQTwevKsmHn5Dqi5LKy6zaKqKi';
const usage = { fsTotal: 1, fsFree: 1, used: null, usedAt: null, usedBy: [] };
const STORAGES = [{ ...listed(ZStorage.parse({ name: 'Photos', path: '/p' }), { usage }), key: 's1' }];
const CONFIGURE = ZStorageConfigure.parse({
  users: [
    { account: 'alice', password: SECRET_MASK, publicKeys: `${ED25519} alice@laptop\n${ED25519} alice@phone` },
    { account: 'bob', password: SECRET_MASK },
  ],
});

function renderUsers() {
  const fetchSpy = stubFetch({ ret: 0, msg: '' });
  const qc = testQueryClient();
  qc.setQueryData(storageQueries.configure().queryKey, { ret: 0 as const, configure: CONFIGURE });
  renderWithProviders(<UsersSection storages={STORAGES} />, qc);
  return fetchSpy;
}
const row = (account: string) => screen.getAllByTestId('storage-user-row').find((r) => r.dataset.account === account)!;
const keysInput = () => screen.getByTestId('storage-user-keys-input');

describe('a storage user\'s public keys', () => {
  it('counts the keys in the table', async () => {
    renderUsers();
    await screen.findAllByTestId('storage-user-row');
    expect(within(row('alice')).getByTestId('storage-user-keys').dataset.value).toBe('2');
    expect(within(row('bob')).queryByTestId('storage-user-keys')).toBeNull();
  });

  it('names each bad line as it is typed, and sends the keys with the user once they are good', async () => {
    const fetchSpy = renderUsers();
    await screen.findAllByTestId('storage-user-row');
    fireEvent.click(within(row('bob')).getByTestId('storage-user-edit'));
    await screen.findByTestId('storage-user-keys-input');
    expect(screen.getByTestId('storage-user-keys-count').textContent).toBe('没有公钥');
    fireEvent.change(keysInput(), { target: { value: `${ED25519} bob@pc\nfrom="10.0.0.1" ${ED25519}\nssh-dss AAAA` } });
    await waitFor(() => expect(screen.getAllByTestId('storage-user-key-problem').map((p) => p.dataset.line)).toEqual(['2', '3']));
    expect(screen.getAllByTestId('storage-user-key-problem')[0]!.textContent).toMatch(/^第 2 行：公钥行前不能带选项/);
    expect(screen.getByTestId('storage-user-keys-count').dataset.value).toBe('1');
    fireEvent.click(screen.getByTestId('storage-user-save'));
    await waitFor(() => expect(screen.getByTestId('storage-user-keys-input').getAttribute('aria-invalid')).toBe('true'));
    expect(fetchSpy).not.toHaveBeenCalled();
    fireEvent.change(keysInput(), { target: { value: `${ED25519} bob@pc` } });
    await waitFor(() => expect(screen.queryAllByTestId('storage-user-key-problem')).toEqual([]));
    expect(screen.getByTestId('storage-user-keys-count').textContent).toBe('1 个公钥');
    fireEvent.click(screen.getByTestId('storage-user-save'));
    await waitFor(() => expect(fetchSpy).toHaveBeenCalled());
    const [url, init] = fetchSpy.mock.calls[0]!;
    expect(String(url)).toContain('/api/storage/configure');
    const body = JSON.parse(String(init?.body)) as StorageConfigure;
    expect(body.users.map((u) => [u.account, u.publicKeys])).toEqual([
      ['alice', CONFIGURE.users[0]!.publicKeys],
      ['bob', `${ED25519} bob@pc`],
    ]);
  });
});
