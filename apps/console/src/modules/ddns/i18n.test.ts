import { describe, expect, it } from 'vitest';
import { parityProblems } from '../../i18n/parity';
import { en_US, zh_CN } from './i18n';

describe('ddns texts', () => {
  it('zh_CN and en_US match (keys, non-empty, placeholders)', () => {
    expect(parityProblems(zh_CN, en_US)).toEqual([]);
  });

  it('names the nine sync statuses of the spec', () => {
    expect(zh_CN['status.updateSucceeded']).toBe('更新成功');
    expect(en_US['status.updateFailed']).toBe('Update failed');
    expect(Object.keys(zh_CN).filter((k) => k.startsWith('status.'))).toHaveLength(9);
  });
});
