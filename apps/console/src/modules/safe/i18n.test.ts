import { describe, expect, it } from 'vitest';
import { en_US } from './i18n.en_US';
import { zh_CN } from './i18n.zh_CN';
import { SAFE_TABS } from './SafePage';

describe('security texts', () => {
  it('names every tab and both token scopes', () => {
    for (const tab of SAFE_TABS) expect(zh_CN[`tab.${tab}` as keyof typeof zh_CN]).toBeTruthy();
    expect(en_US['tk.scope.read']).toBe('Read only');
    expect(zh_CN['tk.scope.full']).toBe('完全');
  });
});
