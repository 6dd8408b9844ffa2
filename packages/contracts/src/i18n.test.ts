import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MESSAGES, formatIssues, message, msg, msgKey, parseLang, renderMsg, renderMsgs } from './i18n.js';

describe('messages', () => {
  it('has every key in both languages, none empty', () => {
    const zh = Object.keys(MESSAGES.zh_CN).sort();
    const en = Object.keys(MESSAGES.en_US).sort();
    expect(en).toEqual(zh);
    for (const lang of ['zh_CN', 'en_US'] as const) for (const v of Object.values(MESSAGES[lang])) expect(v.trim()).not.toBe('');
  });
  it('names the same placeholders in both languages', () => {
    const names = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const key of Object.keys(MESSAGES.zh_CN) as Array<keyof typeof MESSAGES.zh_CN>) {
      expect(names(MESSAGES.en_US[key]), key).toEqual(names(MESSAGES.zh_CN[key]));
    }
  });
  it('renders a message whose value is another message, in the same language', () => {
    const part = msg('statusPortInUse', { port: 80, address: 'tcp 0.0.0.0:80' });
    expect(renderMsg('en_US', msg('statusFirewall', { detail: part }))).toBe('firewall: port 80 in use (tcp 0.0.0.0:80)');
    expect(renderMsgs('zh_CN', [part, msg('statusMoreProblems', { n: 2 })])).toBe('端口 80 已被占用（tcp 0.0.0.0:80）；另有 2 项问题');
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
