import { describe, expect, it } from 'vitest';
import { parityProblems } from '../../i18n/parity';
import { en_US, pfTextIn, zh_CN } from './i18n';

describe('port forwarding texts', () => {
  it('zh_CN and en_US match (keys, non-empty, placeholders)', () => {
    expect(parityProblems(zh_CN, en_US)).toEqual([]);
  });

  it('names every engine state in both languages', () => {
    for (const l of ['zh_CN', 'en_US'] as const) for (const s of ['running', 'stopped', 'error', 'disabled'] as const) expect(pfTextIn(l)(`state.${s}`)).toBeTruthy();
  });
});
