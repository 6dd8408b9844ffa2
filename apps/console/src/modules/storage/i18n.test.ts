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

  it('name the storage kinds and the test button in both languages', () => {
    const zh = storageTextIn('zh_CN');
    const en = storageTextIn('en_US');
    expect(['local', 'webdav', 'sftp', 's3'].map((k) => zh(`kind.${k}` as 'kind.local'))).toEqual(['本地目录', 'WebDAV', 'SFTP', 'S3']);
    expect(['local', 'webdav', 'sftp', 's3'].map((k) => en(`kind.${k}` as 'kind.local'))).toEqual(['Local directory', 'WebDAV', 'SFTP', 'S3']);
    expect([zh('testRemote'), en('testRemote')]).toEqual(['测试连接', 'Test connection']);
    expect(en('pinHostKey', { fingerprint: 'SHA256:x' })).toContain('SHA256:x');
  });
});
