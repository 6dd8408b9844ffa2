import { beforeEach, describe, expect, it } from 'vitest';
import { STORAGE_KEY, storage } from './storage';

describe('storage', () => {
  beforeEach(() => localStorage.clear());

  it('keeps everything in one JSON object under the key lucky', () => {
    storage.set('lang', 'en_US');
    storage.set('token', 'abc');
    storage.set('twoFAEnable', true);
    expect(STORAGE_KEY).toBe('lucky');
    expect(localStorage.length).toBe(1);
    expect(JSON.parse(localStorage.getItem('lucky')!)).toEqual({ lang: 'en_US', token: 'abc', twoFAEnable: true });
    expect(storage.get('lang')).toBe('en_US');
    storage.remove('twoFAEnable');
    expect(storage.get('twoFAEnable')).toBeUndefined();
  });

  it('removes one item and clears all', () => {
    storage.merge({ lang: 'en_US', token: 't', twoFAEnable: false });
    storage.remove('token');
    expect(storage.all()).toEqual({ lang: 'en_US', twoFAEnable: false });
    storage.clear();
    expect(localStorage.getItem('lucky')).toBeNull();
    expect(storage.get('lang')).toBeUndefined();
  });

  it('treats a damaged value as empty', () => {
    localStorage.setItem('lucky', '{not json');
    expect(storage.get('lang')).toBeUndefined();
    localStorage.setItem('lucky', '[1,2]');
    expect(storage.all()).toEqual({});
    storage.set('lang', 'zh_CN');
    expect(storage.all()).toEqual({ lang: 'zh_CN' });
  });
});
