import { describe, expect, it } from 'vitest';
import { en_US } from './en_US';
import { zh_CN } from './zh_CN';

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('i18n', () => {
  it('zh_CN and en_US have exactly the same keys', () => {
    const zh = Object.keys(zh_CN).sort();
    const en = Object.keys(en_US).sort();
    expect(en.filter((k) => !zh.includes(k))).toEqual([]);
    expect(zh.filter((k) => !en.includes(k))).toEqual([]);
  });

  it('every text is non-empty and uses the same placeholders in both languages', () => {
    for (const [k, zh] of Object.entries(zh_CN)) {
      const en = (en_US as Record<string, string>)[k]!;
      expect(zh.trim(), k).not.toBe('');
      expect(en.trim(), k).not.toBe('');
      expect(placeholders(en), k).toEqual(placeholders(zh));
    }
  });

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
});
