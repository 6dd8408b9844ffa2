/** The storage form in jsdom: the directory check asks the daemon for the path as typed and shows its answer; the quota goes in bytes. */
import { ZStorage, type Storage } from '@lucky/contracts';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { listed, renderRuleForm, sentOnClick, withDomShims } from '../../testing/dom';
import { RuleForm } from './RuleForm';
import { storageRules } from './ruleModule';

withDomShims();

const usage = { fsTotal: 2e12, fsFree: 5e11, used: null, usedAt: null, usedBy: [] };
const renderForm = (saved: Storage | null) => renderRuleForm(storageRules, RuleForm, saved && listed(saved, { usage }), () => undefined);
const change = (id: string, value: string) => fireEvent.change(screen.getByTestId(id), { target: { value } });

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
});
