import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MESSAGES, formatIssues, message, msgKey, parseLang } from './i18n.js';

describe('messages', () => {
  it('has every key in both languages, none empty', () => {
    const zh = Object.keys(MESSAGES.zh_CN).sort();
    const en = Object.keys(MESSAGES.en_US).sort();
    expect(en).toEqual(zh);
    for (const lang of ['zh_CN', 'en_US'] as const) for (const v of Object.values(MESSAGES[lang])) expect(v.trim()).not.toBe('');
  });
  it('fills variables', () => {
    expect(message('en_US', 'portInUse', { port: 80 })).toBe('Port 80 is already in use');
    expect(message('zh_CN', 'portInUse', { port: 80 })).toBe('端口 80 已被占用');
  });
  it('reads the language from the header values it may get', () => {
    expect(parseLang('en_US')).toBe('en_US');
    expect(parseLang('en-GB,en;q=0.9')).toBe('en_US');
    expect(parseLang('zh-CN')).toBe('zh_CN');
    expect(parseLang(undefined)).toBe('zh_CN');
  });
  it('names the failing field in the caller language and translates message keys', () => {
    const s = z.object({ list: z.array(z.object({ name: z.string().min(1, { error: msgKey('cannotBeEmpty') }) })), n: z.number().max(5) });
    expect(formatIssues(s, { list: [{ name: '' }], n: 1 }, 'en_US')).toBe('Invalid list[0].name: cannot be empty');
    expect(formatIssues(s, { list: [{ name: '' }], n: 1 }, 'zh_CN')).toBe('参数 list[0].name 错误：不能为空');
    expect(formatIssues(s, { list: [], n: 9 }, 'en_US')).toMatch(/^Invalid n: .*5/);
    expect(formatIssues(s, 'nope', 'en_US')).toMatch(/^Invalid request: /);
  });
});
