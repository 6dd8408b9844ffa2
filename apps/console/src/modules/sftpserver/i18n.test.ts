import { describe, expect, it } from 'vitest';
import { sftpTextIn } from './i18n';
import { loginsText } from './SftpserverPage';

describe('SFTP server texts', () => {
  it('fill the figures and name the logins, over the kit mount texts', () => {
    expect(sftpTextIn('en_US')('sessions', { n: 2 })).toBe('logged in 2');
    expect(sftpTextIn('zh_CN')('uploads', { n: 3 })).toBe('上传文件 3');
    for (const l of ['zh_CN', 'en_US'] as const) {
      const text = sftpTextIn(l);
      expect(text('mountRoot', { storage: 'S' })).toContain('S');
      expect(text('hostKeys')).toBeTruthy();
    }
    expect(loginsText({ passwordLogin: true, keyLogin: true }, sftpTextIn('en_US'))).toBe('password · public key');
    expect(loginsText({ passwordLogin: false, keyLogin: true }, sftpTextIn('zh_CN'))).toBe('公钥');
  });
});
