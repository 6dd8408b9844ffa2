import { describe, expect, it } from 'vitest';
import { parityProblems } from '../../i18n/parity';
import { ftpTextIn } from './i18n';
import { en_US } from './i18n.en_US';
import { zh_CN } from './i18n.zh_CN';

describe('FTP server texts', () => {
  it('both tables have the same keys and placeholders', () => {
    expect(parityProblems(zh_CN, en_US)).toEqual([]);
  });

  it('name the mount modes and the certificate parts (from the kit) in both languages', () => {
    for (const l of ['zh_CN', 'en_US'] as const) {
      const text = ftpTextIn(l);
      for (const m of ['root', 'folders'] as const) expect(text(`mountMode.${m}`)).toBeTruthy();
      expect(text('certAdd')).toBeTruthy();
      expect(text('mountRoot', { storage: 'S' })).toContain('S');
    }
    expect(ftpTextIn('en_US')('certAdd')).toBe('Add certificate');
  });
});
