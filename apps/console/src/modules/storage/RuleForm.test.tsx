/**
 * The storage form in jsdom: the directory check asks the daemon for the path as typed and shows its
 * answer; the quota goes in bytes; a remote kind shows its own fields, "test connection" sends the
 * form as it is (with the key when editing) and offers to pin an SFTP server's host key.
 */
import { SECRET_MASK, ZStorage, type Storage } from '@lucky/contracts';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { listed, renderRuleForm, sentOnClick, withDomShims } from '../../testing/dom';
import { RuleForm } from './RuleForm';
import { storageRules } from './ruleModule';

withDomShims();

const usage = { fsTotal: 2e12, fsFree: 5e11, used: null, usedAt: null, usedBy: [] };
const renderForm = (saved: Storage | null) => renderRuleForm(storageRules, RuleForm, saved && listed(saved, { usage }), () => undefined);
const change = (id: string, value: string) => fireEvent.change(screen.getByTestId(id), { target: { value } });
const answerWith = (fetchSpy: ReturnType<typeof renderForm>, answer: object) => fetchSpy.mockImplementation(() => Promise.resolve(new Response(JSON.stringify({ ret: 0, ...answer }))));
const FP = 'SHA256:3pWkmwHcW7wSeuuD/0xF4hxvPNkW3ugMnTAbCSLp8V8';
const OLD_FP = 'SHA256:AAAAmwHcW7wSeuuD/0xF4hxvPNkW3ugMnTAbCSLp8V8';
/** A SegmentedControl's option by its label. */
const pickKind = (label: string) => fireEvent.click(screen.getByTestId('storage-kind').querySelector(`input[value="${label}"]`)!);

describe('the storage form', () => {
  it('checks the directory: the path as typed goes to checkpath; the answer shows space and writability', async () => {
    const fetchSpy = renderForm(null);
    await screen.findByTestId('storage-path');
    change('storage-path', '/srv/data');
    fetchSpy.mockImplementation(() => Promise.resolve(new Response(JSON.stringify({ ret: 0, exists: true, directory: true, writable: true, fsTotal: 2e12, fsFree: 5e11, msg: '目录可用' }))));
    fireEvent.click(screen.getByTestId('storage-check'));
    const result = await screen.findByTestId('storage-check-result');
    expect(result.getAttribute('data-ok')).toBe('true');
    expect(result.textContent).toContain('500 GB');
    const [url, init] = fetchSpy.mock.calls[0]!;
    expect(String(url)).toContain('/api/storage/checkpath');
    expect(JSON.parse(String(init?.body))).toEqual({ path: '/srv/data' });
    // Another path: the old answer goes.
    change('storage-path', '/srv/other');
    await waitFor(() => expect(screen.queryByTestId('storage-check-result')).toBeNull());
  });

  it('a missing directory is said in red', async () => {
    const fetchSpy = renderForm(null);
    await screen.findByTestId('storage-path');
    change('storage-path', '/nope');
    fetchSpy.mockImplementation(() => Promise.resolve(new Response(JSON.stringify({ ret: 0, exists: false, directory: false, writable: false, fsTotal: 0, fsFree: 0, msg: '目录不存在：/nope' }))));
    fireEvent.click(screen.getByTestId('storage-check'));
    const result = await screen.findByTestId('storage-check-result');
    expect(result.getAttribute('data-ok')).toBe('false');
    expect(result.textContent).toContain('目录不存在');
  });

  it('refuses a relative path before any call; creates with the quota in bytes', async () => {
    const fetchSpy = renderForm(null);
    await screen.findByTestId('storage-name');
    change('storage-name', 'data');
    change('storage-path', 'srv');
    fireEvent.click(screen.getByTestId('storage-save'));
    await waitFor(() => expect(screen.getByTestId('storage-path').getAttribute('aria-invalid')).toBe('true'));
    expect(fetchSpy).not.toHaveBeenCalled();
    change('storage-path', '/srv');
    change('storage-quota', '2');
    expect(await sentOnClick(fetchSpy, 'storage-save', '/api/storage/rules', 'POST')).toEqual(ZStorage.parse({ name: 'data', enable: true, path: '/srv', readOnly: false, quota: 2e9, note: '' }));
  });

  it('edits: unchanged fields go back as they were', async () => {
    const saved = ZStorage.parse({ name: 's', path: '/a', readOnly: true, quota: 3e12, note: 'n' });
    const fetchSpy = renderForm(saved);
    expect(await sentOnClick(fetchSpy, 'storage-save', '/api/storage/rules/k1', 'PUT')).toEqual(saved);
  });

  it('a remote kind: its fields instead of the directory; test connection sends the form and shows the answer in green or red', async () => {
    const fetchSpy = renderForm(null);
    await screen.findByTestId('storage-path');
    change('storage-name', 'nas');
    pickKind('webdav');
    await screen.findByTestId('storage-webdav-url');
    expect(screen.queryByTestId('storage-path')).toBeNull();
    expect(screen.queryByTestId('storage-check')).toBeNull();
    change('storage-webdav-url', 'http://127.0.0.1:8080/dav');
    change('storage-webdav-username', 'u');
    change('storage-webdav-password', 'p');
    change('storage-cache-seconds', '5');
    answerWith(fetchSpy, { ok: true, msg: '连接成功，根目录下有 2 项', entries: 2, hostKey: '' });
    const body = await sentOnClick<{ key?: string; storage: Storage }>(fetchSpy, 'storage-test', '/api/storage/testremote', 'POST');
    expect(body.key).toBeUndefined();
    expect(body.storage).toMatchObject({ name: 'nas', kind: 'webdav', webdav: { url: 'http://127.0.0.1:8080/dav', username: 'u', password: 'p', skipTlsVerify: false }, cacheSeconds: 5 });
    await waitFor(() => expect(screen.getByTestId('storage-test-answer').getAttribute('data-ok')).toBe('true'));
    expect(screen.getByTestId('storage-test-result').textContent).toContain('根目录下有 2 项');
    expect(screen.queryByTestId('storage-pin-hostkey')).toBeNull();
    answerWith(fetchSpy, { ok: false, msg: '无法连接：远程服务器返回 HTTP 401', entries: 0, hostKey: '' });
    fireEvent.click(screen.getByTestId('storage-test'));
    await waitFor(() => expect(screen.getByTestId('storage-test-answer').getAttribute('data-ok')).toBe('false'));
    expect(screen.getByTestId('storage-test-result').textContent).toContain('HTTP 401');
    // Back to a local directory: the answer goes, the directory comes back.
    pickKind('local');
    await screen.findByTestId('storage-path');
    expect(screen.queryByTestId('storage-test-answer')).toBeNull();
  });

  it('editing an SFTP storage: the key goes with the masked secrets; the host key the server showed, not the pinned one, can be pinned, then saved', async () => {
    const saved = ZStorage.parse({ name: 'box', kind: 'sftp', sftp: { host: 'nas.lan', port: 2222, username: 'u', password: SECRET_MASK, hostKey: OLD_FP, root: '/srv' } });
    const fetchSpy = renderForm(saved);
    await screen.findByTestId('storage-sftp-host');
    expect((screen.getByTestId('storage-sftp-password') as HTMLInputElement).value).toBe(SECRET_MASK);
    answerWith(fetchSpy, { ok: false, msg: `无法连接：服务器主机密钥是 ${FP}，与填写的 ${OLD_FP} 不符`, entries: 0, hostKey: FP });
    const body = await sentOnClick<{ key?: string; storage: Storage }>(fetchSpy, 'storage-test', '/api/storage/testremote', 'POST');
    expect(body).toEqual({ key: 'k1', storage: saved });
    const pin = await screen.findByTestId('storage-pin-hostkey');
    expect(pin.getAttribute('data-fingerprint')).toBe(FP);
    expect(pin.textContent).toContain(FP);
    fireEvent.click(pin);
    await waitFor(() => expect((screen.getByTestId('storage-sftp-hostkey') as HTMLInputElement).value).toBe(FP));
    expect(screen.queryByTestId('storage-pin-hostkey')).toBeNull();
    fetchSpy.mockClear();
    answerWith(fetchSpy, { ret: 0, key: 'k1', msg: '' });
    expect(await sentOnClick(fetchSpy, 'storage-save', '/api/storage/rules/k1', 'PUT')).toEqual({ ...saved, sftp: { ...saved.sftp, hostKey: FP } });
  });

  it('an SFTP storage without a host key or a credential is not saved: the fields are named', async () => {
    const fetchSpy = renderForm(null);
    await screen.findByTestId('storage-name');
    change('storage-name', 'box');
    pickKind('sftp');
    await screen.findByTestId('storage-sftp-host');
    change('storage-sftp-host', 'nas.lan');
    change('storage-sftp-username', 'u');
    fireEvent.click(screen.getByTestId('storage-save'));
    await waitFor(() => expect(screen.getByTestId('storage-sftp-hostkey').getAttribute('aria-invalid')).toBe('true'));
    expect(screen.getByTestId('storage-sftp-password').getAttribute('aria-invalid')).toBe('true');
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});
