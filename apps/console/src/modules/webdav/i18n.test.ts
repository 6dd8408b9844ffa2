import { describe, expect, it } from 'vitest';
import { webdavTextIn } from './i18n';

describe('WebDAV texts', () => {
  it('name the mount modes and the certificate parts (from the kit) in both languages', () => {
    for (const l of ['zh_CN', 'en_US'] as const) {
      const text = webdavTextIn(l);
      for (const m of ['root', 'folders'] as const) expect(text(`mountMode.${m}`)).toBeTruthy();
      expect(text('certAdd')).toBeTruthy();
      expect(text('mountRoot', { storage: 'S' })).toContain('S');
    }
    expect(webdavTextIn('en_US')('certAdd')).toBe('Add certificate');
  });
});
