import { describe, expect, it } from 'vitest';
import { fbTextIn } from './i18n';

describe('file browser texts', () => {
  it('fill their placeholders in both languages', () => {
    expect(fbTextIn('en_US')('deleteConfirm', { n: 3 })).toMatch(/^Delete these 3 item/);
    expect(fbTextIn('zh_CN')('deleteConfirm', { n: 3 })).toContain('3 项');
    expect(fbTextIn('en_US')('uploadTotal', { done: '1 MB', total: '2 MB' })).toBe('Total 1 MB / 2 MB');
  });
});
