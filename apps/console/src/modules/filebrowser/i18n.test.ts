import { describe, expect, it } from 'vitest';
import { parityProblems } from '../../i18n/parity';
import { fbTextIn } from './i18n';
import { en_US } from './i18n.en_US';
import { zh_CN } from './i18n.zh_CN';

describe('file browser texts', () => {
  it('both tables have the same keys and placeholders', () => {
    expect(parityProblems(zh_CN, en_US)).toEqual([]);
  });

  it('fill their placeholders in both languages', () => {
    expect(fbTextIn('en_US')('deleteConfirm', { n: 3 })).toMatch(/^Delete these 3 item/);
    expect(fbTextIn('zh_CN')('deleteConfirm', { n: 3 })).toContain('3 项');
    expect(fbTextIn('en_US')('uploadTotal', { done: '1 MB', total: '2 MB' })).toBe('Total 1 MB / 2 MB');
  });
});
