import { describe, expect, it } from 'vitest';
import { en_US } from './i18n.en_US';
import { zh_CN } from './i18n.zh_CN';

describe('ddns texts', () => {
  it('names the nine sync statuses of the spec', () => {
    expect(zh_CN['status.updateSucceeded']).toBe('更新成功');
    expect(en_US['status.updateFailed']).toBe('Update failed');
    expect(Object.keys(zh_CN).filter((k) => k.startsWith('status.'))).toHaveLength(9);
  });
});
