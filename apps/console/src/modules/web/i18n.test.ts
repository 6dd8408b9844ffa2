import { describe, expect, it } from 'vitest';
import { en_US } from './i18n.en_US';
import { zh_CN } from './i18n.zh_CN';

describe('web texts', () => {
  it('names the six service types', () => {
    expect(Object.keys(zh_CN).filter((k) => k.startsWith('type.'))).toHaveLength(6);
    expect(en_US['type.close']).toBe('Close connection');
  });
});
