import { SECRET_MASK } from '@lucky/contracts';
import { describe, expect, it } from 'vitest';
import { portalTextIn } from './i18n';

describe('Login portal texts', () => {
  it('name the page, the 2FA states and the session columns in both languages', () => {
    expect(portalTextIn('zh_CN')('title')).toBe('登录门户');
    expect(portalTextIn('en_US')('title')).toBe('Login portal');
    for (const l of ['zh_CN', 'en_US'] as const) {
      const text = portalTextIn(l);
      for (const s of ['on', 'new', 'off'] as const) expect(text(`totp.${s}`)).toBeTruthy();
      for (const c of ['user', 'address', 'agent', 'created', 'lastSeen', 'expires', 'end'] as const) expect(text(`se.${c}`)).toBeTruthy();
      expect(text('passwordKeep', { mask: SECRET_MASK })).toContain(SECRET_MASK);
      // The kit's texts fill what the module does not word itself.
      expect(text('cancel')).toBeTruthy();
    }
    expect(portalTextIn('en_US')('set.cookieDomainHint')).toContain('one sign-in covers it and every name under it');
  });
});
