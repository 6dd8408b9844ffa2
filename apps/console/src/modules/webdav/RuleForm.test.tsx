/** The WebDAV form in jsdom: storages to mount come from the storage list; modes, HTTPS certificates, create and edit bodies. */
import { ZStorage, ZWebdavRule, type WebdavRule } from '@lucky/contracts';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { storageChoicesQuery } from '../../kit/storage/queries';
import { listed, renderRuleForm, sentOnClick, withDomShims } from '../../testing/dom';
import { RuleForm } from './RuleForm';
import { webdavRules } from './ruleModule';

withDomShims();

const usage = { fsTotal: 1, fsFree: 1, used: null, usedAt: null, usedBy: [] };
const storage = (key: string, name: string) => ({ ...listed(ZStorage.parse({ name, path: `/${key}` }), { usage }), key });
const figures = { connections: 0, requests: 0, bytesIn: 0, bytesOut: 0, denied: 0 };

const renderForm = (saved: WebdavRule | null) =>
  renderRuleForm(webdavRules, RuleForm, saved && listed(saved, { figures, url: 'http://127.0.0.1:8080/' }), (qc) => {
    qc.setQueryData(storageChoicesQuery().queryKey, { ret: 0 as const, list: [storage('s1', 'Photos'), storage('s2', 'Docs')] });
  });
const change = (id: string, value: string) => fireEvent.change(screen.getByTestId(id), { target: { value } });
const items = () => screen.queryAllByTestId('webdav-form-error-item').map((e) => e.textContent);

describe('the WebDAV rule form', () => {
  it('refuses a rule without a storage, and HTTPS without a certificate, before any call', async () => {
    const fetchSpy = renderForm(null);
    await screen.findByTestId('webdav-name');
    change('webdav-name', 'dav');
    fireEvent.click(screen.getByTestId('webdav-tls'));
    await screen.findByTestId('webdav-cert-add');
    fireEvent.click(screen.getByTestId('webdav-save'));
    await waitFor(() => expect(items()).toEqual(['挂载的存储不能为空', expect.stringContaining('证书')]));
    expect(fetchSpy).not.toHaveBeenCalled();
    fireEvent.click(screen.getByTestId('webdav-cert-add'));
    expect(await screen.findByTestId('webdav-cert-0')).not.toBeNull();
  });

  it('creates a rule with storages as folders', async () => {
    const fetchSpy = renderForm(null);
    await screen.findByTestId('webdav-name');
    change('webdav-name', 'dav');
    change('webdav-port', '18080');
    change('webdav-prefix', '/dav');
    fireEvent.click(screen.getByTestId('webdav-mount-mode').querySelector('input[value="folders"]')!);
    await screen.findByTestId('webdav-folder');
    fireEvent.click(screen.getByTestId('webdav-folder-add'));
    await waitFor(() => expect(screen.getAllByTestId('webdav-folder')).toHaveLength(2));
    const names = screen.getAllByTestId('webdav-folder-name');
    fireEvent.change(names[0]!, { target: { value: 'photos' } });
    fireEvent.change(names[1]!, { target: { value: 'docs' } });
    // Storages are chosen in the Select's options.
    for (const [i, label] of [[0, 'Photos'], [1, 'Docs']] as const) {
      fireEvent.click(screen.getAllByTestId('webdav-folder-storage')[i]!);
      fireEvent.click(await screen.findByRole('option', { name: label }));
    }
    const body = await sentOnClick<WebdavRule>(fetchSpy, 'webdav-save', '/api/webdav/rules', 'POST');
    expect(body).toMatchObject({ name: 'dav', port: 18080, prefix: '/dav', tls: false, certs: [], mounts: [{ name: 'photos', storage: 's1' }, { name: 'docs', storage: 's2' }] });
    expect(ZWebdavRule.safeParse(body).success).toBe(true);
  });

  it('edits: unchanged fields go back as they were', async () => {
    const saved = ZWebdavRule.parse({ name: 'd', address: '127.0.0.1', port: 8081, prefix: '/x', mounts: [{ name: '', storage: 's2' }], lockTimeout: 60 });
    const fetchSpy = renderForm(saved);
    expect(await sentOnClick(fetchSpy, 'webdav-save', '/api/webdav/rules/k1', 'PUT')).toEqual(saved);
  });
});
