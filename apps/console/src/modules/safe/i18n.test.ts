import { describe, expect, it } from 'vitest';
import { parityProblems } from '../../i18n/parity';
import { en_US, zh_CN } from './i18n';
import { SAFE_TABS } from './SafePage';

describe('security texts', () => {
  it('zh_CN and en_US match (keys, non-empty, placeholders)', () => {
    expect(parityProblems(zh_CN, en_US)).toEqual([]);
  });

  it('names every tab and both token scopes', () => {
    for (const tab of SAFE_TABS) expect(zh_CN[`tab.${tab}` as keyof typeof zh_CN]).toBeTruthy();
    expect(en_US['tk.scope.read']).toBe('Read only');
    expect(zh_CN['tk.scope.full']).toBe('完全');
  });
});
