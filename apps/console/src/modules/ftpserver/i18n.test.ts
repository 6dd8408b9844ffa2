import { describe, expect, it } from 'vitest';
import { ftpTextIn } from './i18n';

describe('FTP server texts', () => {
  it('fill the passive range and name the announced address modes, over the kit mount and certificate texts', () => {
    expect(ftpTextIn('en_US')('passiveRange', { min: 50000, max: 50100 })).toBe('passive ports 50000-50100');
    expect(ftpTextIn('en_US')('certAdd')).toBe('Add certificate');
    for (const l of ['zh_CN', 'en_US'] as const) {
      const text = ftpTextIn(l);
      for (const m of ['auto', 'fixed', 'ddns'] as const) expect(text(`pasvMode.${m}`)).toBeTruthy();
      expect(text('mountRoot', { storage: 'S' })).toContain('S');
    }
  });
});
