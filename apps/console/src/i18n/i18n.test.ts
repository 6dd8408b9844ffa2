import { MODULES } from '@lucky/contracts';
import { describe, expect, it } from 'vitest';
import { en_US } from './en_US';
import { zh_CN } from './zh_CN';

describe('i18n', () => {
  it('keeps the spec wording of the logout dialog and login messages', () => {
    expect(zh_CN['logout.title']).toBe('Warning');
    expect(zh_CN['logout.question']).toBe('确定要注销登录?');
    expect(zh_CN['logout.confirm']).toBe('确认');
    expect(zh_CN['logout.cancel']).toBe('点错了');
    expect(zh_CN['log.title']).toBe('程序日志');
    expect(en_US['login.success']).toBe('Login successful');
    expect(en_US['login.failed']).toBe('Login failed');
    expect(en_US['login.empty']).toBe('Account or password cannot be empty');
    expect(zh_CN['login.resetHint']).toContain('lucky_base.lkcf');
    expect(en_US['login.resetHint']).toContain('lucky_base.lkcf');
  });

  it('names every module (the settings page switches, restore summaries, the module-off notice)', () => {
    for (const table of [zh_CN, en_US] as Record<string, string>[]) {
      expect(MODULES.map((m) => m.key).filter((k) => !table[`module.${k}`])).toEqual([]);
    }
  });
});
