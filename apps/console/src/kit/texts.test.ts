import { describe, expect, it } from 'vitest';
import { bindRuleTexts } from './texts';

describe('kit texts', () => {
  it("a module's own wording comes first, the kit's fills the rest", () => {
    const text = bindRuleTexts({ zh_CN: { settings: '全局设置' }, en_US: { settings: 'Global settings' } }, 'en_US');
    expect(text('settings')).toBe('Global settings');
    expect(text('cancel')).toBe('Cancel');
    expect(text('err.empty', { field: 'Name' })).toBe('Name cannot be empty');
  });
});
