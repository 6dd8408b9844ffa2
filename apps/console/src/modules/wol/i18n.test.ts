import { describe, expect, it } from 'vitest';
import { parityProblems } from '../../i18n/parity';
import { en_US, zh_CN } from './i18n';

describe('wake-on-LAN texts', () => {
  it('zh_CN and en_US match (keys, non-empty, placeholders)', () => {
    expect(parityProblems(zh_CN, en_US)).toEqual([]);
  });
});
