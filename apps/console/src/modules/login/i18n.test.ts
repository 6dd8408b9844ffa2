/** The login page's own tables: not in the shell's list of tables (i18n/tables.test.ts), so checked here. */
import { describe, expect, it } from 'vitest';
import { parityProblems } from '../../i18n/parity';
import { loginTextIn } from './i18n';
import { en_US } from './i18n.en_US';
import { zh_CN } from './i18n.zh_CN';

describe('login texts', () => {
  it('zh_CN and en_US match', () => {
    expect(parityProblems(zh_CN, en_US)).toEqual([]);
  });

  it('name the provider on the sign-in button in both languages', () => {
    expect(loginTextIn('en_US')('ssoButton', { label: 'Authentik' })).toBe('Sign in with Authentik');
    expect(loginTextIn('zh_CN')('ssoButton', { label: 'Authentik' })).toBe('使用 Authentik 登录');
  });
});
