/** The device form in jsdom: the TLS fields only for https, "test" sending the masked token with the device's key, saving. */
import { emptyDeviceState, ZWanjiDevice } from '@lucky/contracts';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { listed, renderRuleForm, sentOnClick, withDomShims } from '../../testing/dom';
import { RuleForm } from './RuleForm';
import { wanjiRules } from './ruleModule';

withDomShims();

const TOKEN = `lk_${'f'.repeat(43)}`;
const change = (id: string, value: string) => fireEvent.change(screen.getByTestId(id), { target: { value } });

describe('the device form', () => {
  it('shows the pin and CA only for https, and saves a new device', async () => {
    const fetchSpy = renderRuleForm(wanjiRules, RuleForm, null, () => undefined);
    await screen.findByTestId('wanji-name');
    expect(screen.queryByTestId('wanji-pin')).toBeNull();
    change('wanji-name', 'NAS');
    change('wanji-url', 'https://nas.lan:16601');
    change('wanji-token', TOKEN);
    await screen.findByTestId('wanji-pin');
    change('wanji-pin', 'AB'.repeat(32));
    expect(await sentOnClick(fetchSpy, 'wanji-save', '/api/wanji/rules', 'POST')).toEqual({ name: 'NAS', enable: true, url: 'https://nas.lan:16601', token: TOKEN, pin: 'AB'.repeat(32), ca: '', group: '', tags: [], note: '' });
  });

  it('tests a saved device with its masked token and its key', async () => {
    const saved = listed(ZWanjiDevice.parse({ name: 'NAS', url: 'http://10.0.0.2:16601', token: '******' }), { state: emptyDeviceState() });
    const fetchSpy = renderRuleForm(wanjiRules, RuleForm, saved, () => undefined);
    expect(await sentOnClick(fetchSpy, 'wanji-test', '/api/wanji/test')).toMatchObject({ key: 'k1', device: { name: 'NAS', token: '******' } });
  });

  it('refuses a token of the wrong format before any call', async () => {
    const fetchSpy = renderRuleForm(wanjiRules, RuleForm, null, () => undefined);
    await screen.findByTestId('wanji-name');
    change('wanji-name', 'NAS');
    change('wanji-url', 'http://nas.lan');
    change('wanji-token', 'secret');
    fireEvent.click(screen.getByTestId('wanji-save'));
    await waitFor(() => expect(screen.getByTestId('wanji-token').getAttribute('aria-invalid')).toBe('true'));
    fireEvent.click(screen.getByTestId('wanji-test'));
    await screen.findByTestId('wanji-test-result');
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});
