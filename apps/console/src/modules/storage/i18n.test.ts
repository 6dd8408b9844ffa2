import { describe, expect, it } from 'vitest';
import { parityProblems } from '../../i18n/parity';
import { storageTextIn } from './i18n';
import { en_US } from './i18n.en_US';
import { zh_CN } from './i18n.zh_CN';

describe('storage management texts', () => {
  it('both tables have the same keys and placeholders', () => {
    expect(parityProblems(zh_CN, en_US)).toEqual([]);
  });

  it('name the page, the permissions and the services in both languages', () => {
    expect(storageTextIn('zh_CN')('title')).toBe('存储管理');
    for (const l of ['zh_CN', 'en_US'] as const) {
      const text = storageTextIn(l);
      for (const op of ['read', 'write', 'delete'] as const) expect(text(`perm.${op}`)).toBeTruthy();
      for (const s of ['webdav', 'ftpserver', 'filebrowser'] as const) expect(text(`service.${s}`)).toBeTruthy();
      expect(text('passwordKeep', { mask: '******' })).toContain('******');
    }
  });
});
