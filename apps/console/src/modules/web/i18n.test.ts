import { describe, expect, it } from 'vitest';
import { parityProblems } from '../../i18n/parity';
import { en_US, zh_CN } from './i18n';

describe('web texts', () => {
  it('zh_CN and en_US match (keys, non-empty, placeholders)', () => {
    expect(parityProblems(zh_CN, en_US)).toEqual([]);
  });

  it('names the six service types', () => {
    expect(Object.keys(zh_CN).filter((k) => k.startsWith('type.'))).toHaveLength(6);
    expect(en_US['type.close']).toBe('Close connection');
  });
});
