import { describe, expect, it } from 'vitest';
import { storageTextIn } from './i18n';

describe('storage management texts', () => {
  it('name the page, the permissions and the services in both languages', () => {
    expect(storageTextIn('zh_CN')('title')).toBe('存储管理');
    for (const l of ['zh_CN', 'en_US'] as const) {
      const text = storageTextIn(l);
      for (const op of ['read', 'write', 'delete'] as const) expect(text(`perm.${op}`)).toBeTruthy();
      for (const s of ['webdav', 'ftpserver', 'sftpserver', 'filebrowser'] as const) expect(text(`service.${s}`)).toBeTruthy();
      expect(text('passwordKeep', { mask: '******' })).toContain('******');
    }
  });
});
