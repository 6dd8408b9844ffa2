/** The SFTP server screen in jsdom: a rule's row (logins, mounts, address, figures) and the host keys card; the form's bodies. */
import { ZSftpRule, ZStorage, type SftpHostKey, type SftpRule } from '@lucky/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { storageChoicesQuery } from '../../kit/storage/queries';
import { listed, renderRuleForm, renderWithProviders, sentOnClick, testQueryClient, withDomShims } from '../../testing/dom';
import { hostKeysQuery, sftpQueries } from './queries';
import { RuleForm } from './RuleForm';
import { sftpRules } from './ruleModule';
import { SftpserverPage } from './SftpserverPage';

withDomShims();

const usage = { fsTotal: 1, fsFree: 1, used: null, usedAt: null, usedBy: [] };
const STORAGES = [{ ...listed(ZStorage.parse({ name: 'Photos', path: '/p' }), { usage }), key: 's1' }];
const figures = { connections: 2, sessions: 1, requests: 40, uploads: 3, downloads: 5, bytesIn: 2048, bytesOut: 0, denied: 4 };
const RULE = { ...listed(ZSftpRule.parse({ name: 'home', address: '127.0.0.1', port: 2022, mounts: [{ name: '', storage: 's1' }], passwordLogin: false }), { figures, url: 'sftp://127.0.0.1:2022/' }), key: 'r1' };
const KEY: SftpHostKey = { type: 'ssh-ed25519', fingerprint: 'SHA256:3pWkmwHcW7wSeuuD/0xF4hxvPNkW3ugMnTAbCSLp8V8', publicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBV3Tgu2DOrAQbIdX5GQTwevKsmHn5Dqi5LKy6zaKqKi' };
const json = (body: unknown) => Promise.resolve(new Response(JSON.stringify(body)));

function renderPage(keys: SftpHostKey[]) {
  vi.stubGlobal(
    'fetch',
    vi.fn((url: string) => {
      if (url.includes('/api/modules/list')) return json({ ret: 0, Modules: ['sftpserver'] });
      if (url.includes('/api/sftpserver/hostkeys')) return json({ ret: 0, keys });
      if (url.includes('/api/sftpserver/rules')) return json({ ret: 0, list: [RULE] });
      if (url.includes('/api/storage/rules')) return json({ ret: 0, list: STORAGES });
      return json({ ret: 0 });
    }),
  );
  const qc = testQueryClient();
  qc.setQueryData(sftpQueries.list().queryKey, { ret: 0 as const, list: [RULE] });
  qc.setQueryData(storageChoicesQuery().queryKey, { ret: 0 as const, list: STORAGES });
  renderWithProviders(<SftpserverPage />, qc);
}

describe('the SFTP server list', () => {
  it('shows where it listens, the logins it takes, what it mounts, the address and the figures', async () => {
    renderPage([KEY]);
    const row = await screen.findByTestId('sftp-row');
    expect(within(row).getByTestId('sftp-row-scheme').textContent).toBe('SFTP');
    expect(within(row).getByTestId('sftp-row-listen').textContent).toBe('127.0.0.1:2022');
    expect(within(row).getByTestId('sftp-row-logins').textContent).toBe('公钥');
    expect(within(row).getByTestId('sftp-row-mounts').textContent).toBe('根目录 → Photos');
    expect(within(row).getByTestId('sftp-url').dataset.url).toBe('sftp://127.0.0.1:2022/');
    for (const [id, v] of [['connections', 2], ['sessions', 1], ['requests', 40], ['uploads', 3], ['downloads', 5], ['in', 2048], ['out', 0]] as const) {
      expect(within(row).getByTestId(`sftp-fig-${id}`).dataset.value).toBe(String(v));
    }
    expect(within(row).getByTestId('sftp-fig-uploads').textContent).toBe('上传文件 3');
    expect(within(row).getByTestId('sftp-fig-denied').textContent).toBe('拒绝 4');
  });

  it('shows the host keys with their SHA256 fingerprints, and a copy button for each public key', async () => {
    renderPage([KEY, { type: 'ssh-rsa', fingerprint: 'SHA256:abc', publicKey: 'ssh-rsa AAAAB3' }]);
    const keys = await screen.findAllByTestId('sftp-hostkey');
    expect(keys.map((k) => [k.dataset.type, within(k).getByTestId('sftp-hostkey-fingerprint').textContent])).toEqual([
      ['ssh-ed25519', KEY.fingerprint],
      ['ssh-rsa', 'SHA256:abc'],
    ]);
    const writeText = vi.fn(() => Promise.resolve());
    // jsdom has no clipboard: one for this test only (the worker is shared by every file).
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    try {
      fireEvent.click(within(keys[0]!).getByTestId('sftp-hostkey-copy'));
      await waitFor(() => expect(writeText).toHaveBeenCalledWith(KEY.publicKey));
      expect(within(keys[0]!).getByTestId('sftp-hostkey-copy').textContent).toBe('已复制');
    } finally {
      Reflect.deleteProperty(navigator, 'clipboard');
    }
  });

  it('says when no key has been made yet', async () => {
    renderPage([]);
    expect(await screen.findByTestId('sftp-hostkeys-empty')).toBeTruthy();
  });
});

const renderForm = (saved: SftpRule | null) =>
  renderRuleForm(sftpRules, RuleForm, saved && listed(saved, { figures, url: '' }), (qc) => {
    qc.setQueryData(storageChoicesQuery().queryKey, { ret: 0 as const, list: STORAGES });
  });
const change = (id: string, value: string) => fireEvent.change(screen.getByTestId(id), { target: { value } });
const items = () => screen.queryAllByTestId('sftp-form-error-item').map((e) => e.textContent);

describe('the SFTP rule form', () => {
  it('refuses a rule without a storage or without any login, before any call', async () => {
    const fetchSpy = renderForm(null);
    await screen.findByTestId('sftp-name');
    change('sftp-name', 'home');
    fireEvent.click(screen.getByTestId('sftp-password-login'));
    fireEvent.click(screen.getByTestId('sftp-key-login'));
    fireEvent.click(screen.getByTestId('sftp-save'));
    await waitFor(() => expect(items()).toEqual(['挂载的存储不能为空', expect.stringMatching(/登录方式.*至少要允许一种登录方式/)]));
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('creates a rule with the defaults and the chosen storage', async () => {
    const fetchSpy = renderForm(null);
    await screen.findByTestId('sftp-name');
    expect((screen.getByTestId('sftp-port') as HTMLInputElement).value).toBe('2222');
    change('sftp-name', 'home');
    change('sftp-address', '127.0.0.1');
    fireEvent.click(screen.getByTestId('sftp-root-storage'));
    fireEvent.click(await screen.findByRole('option', { name: 'Photos' }));
    fireEvent.click(screen.getByTestId('sftp-password-login'));
    const body = await sentOnClick<SftpRule>(fetchSpy, 'sftp-save', '/api/sftpserver/rules', 'POST');
    expect(body).toEqual({ ...ZSftpRule.parse({ name: 'home', address: '127.0.0.1', mounts: [{ name: '', storage: 's1' }] }), passwordLogin: false });
  });

  it('edits: unchanged fields go back as they were', async () => {
    const saved = ZSftpRule.parse({ name: 'd', port: 2200, mounts: [{ name: 'p', storage: 's1' }], keyLogin: false, maxConnections: 9, maxPerUser: 3, idleTimeout: 60, note: 'x' });
    const fetchSpy = renderForm(saved);
    expect(await sentOnClick(fetchSpy, 'sftp-save', '/api/sftpserver/rules/k1', 'PUT')).toEqual(saved);
  });
});
