import { describe, expect, it } from 'vitest';
import { parityProblems } from '../i18n/parity';
import { bindRuleTexts, en_US, zh_CN } from './texts';

describe('kit texts', () => {
  it('zh_CN and en_US match (keys, non-empty, placeholders)', () => {
    expect(parityProblems(zh_CN, en_US)).toEqual([]);
  });

  it("a module's own wording comes first, the kit's fills the rest", () => {
    const text = bindRuleTexts({ zh_CN: { settings: '全局设置' }, en_US: { settings: 'Global settings' } }, 'en_US');
    expect(text('settings')).toBe('Global settings');
    expect(text('cancel')).toBe('Cancel');
    expect(text('err.empty', { field: 'Name' })).toBe('Name cannot be empty');
  });
});
