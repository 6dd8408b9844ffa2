import { SECRET_MASK, ZAcmeConfigure } from '@lucky/contracts';
import { describe, expect, it } from 'vitest';
import { checkSettings, settingsToBody, settingsToForm } from './settings';

describe('certificate settings: automatic certificates', () => {
  it("keeps the automatic certificates' CA through the form: typed text trimmed, days as typed, the HMAC key's mask as it came", () => {
    const stored = ZAcmeConfigure.parse({ auto: { ca: 'zerossl', eabKid: 'kid', eabHmac: SECRET_MASK, email: 'me@example.com', renewBeforeDays: 20 } });
    const f = settingsToForm(stored);
    expect(settingsToBody(f)).toEqual(stored);
    const body = settingsToBody({ ...f, auto: { ...f.auto, email: ' you@example.com ', eabKid: ' kid2 ', renewBeforeDays: '15' } });
    expect(body.auto).toMatchObject({ ca: 'zerossl', email: 'you@example.com', eabKid: 'kid2', eabHmac: SECRET_MASK, renewBeforeDays: 15 });
    expect(checkSettings(f)).toEqual([]);
  });

  it('names the field of a problem of the automatic certificates in both languages', () => {
    const f = settingsToForm(ZAcmeConfigure.parse({}));
    expect(f.auto).toMatchObject({ ca: 'letsencrypt', keyType: 'ec256', renewBeforeDays: 30 });
    const custom = { ...f, auto: { ...f.auto, ca: 'custom' as const, directoryUrl: 'http://plain' } };
    const [en] = checkSettings(custom, 'en_US');
    expect(en).toMatchObject({ path: 'auto.directoryUrl' });
    expect(en!.message).toMatch(/^Automatic certificates: ACME directory URL/);
    expect(checkSettings(custom, 'zh_CN')[0]!.message).toMatch(/^自动证书的 ACME 目录地址/);
    expect(checkSettings({ ...f, auto: { ...f.auto, renewBeforeDays: '' } }, 'en_US')[0]).toMatchObject({ path: 'auto.renewBeforeDays' });
    expect(checkSettings({ ...f, auto: { ...f.auto, ca: 'google' } }, 'en_US').map((p) => p.path)).toEqual(['auto.eabKid', 'auto.eabHmac']);
  });
});
