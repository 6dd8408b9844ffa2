import { CONSOLE_MODULE_NAMES } from '@lucky/contracts';
import { describe, expect, it } from 'vitest';
import { routeMeta, routeTree } from './routes';
import { shellText } from './i18n';

const children = (routeTree.children ?? []) as unknown as { options: { path: string; staticData?: unknown } }[];

describe('route table', () => {
  it('has the spec routes, with module routes only for the fixed module list', () => {
    const paths = children.map((r) => r.options.path).sort();
    expect(paths).toEqual(
      [
        '/', '/login', '/about', '/set', '/safe', '/status', '/wanjiadmin', '/wanjiadmin/$key',
        '/ftpserver', '/sftpserver', '/cron', '/wol', '/webdav', '/filebrowser', '/storagemanagement', '/ddns', '/web', '/stun', '/portforward', '/acme', '/publish', '/portal',
      ].sort(),
    );
    const modulePaths = paths.filter((p) => !['/', '/login', '/about', '/set', '/safe', '/status', '/wanjiadmin', '/wanjiadmin/$key'].includes(p));
    for (const p of modulePaths) expect(CONSOLE_MODULE_NAMES as readonly string[]).toContain(p.slice(1));
    // diy is in the list but has no screen.
    expect(paths).not.toContain('/diy');
  });

  it('titles routes with the spec texts (default language zh_CN)', () => {
    const title = (p: string) => {
      const id = routeMeta(children.find((r) => r.options.path === p)?.options.staticData).title;
      return id ? shellText(id) : undefined;
    };
    expect(title('/login')).toBe('登录');
    expect(title('/stun')).toBe('STUN内网穿透');
    expect(title('/ftpserver')).toBe('FTP服务');
    expect(title('/sftpserver')).toBe('SFTP服务');
    expect(title('/publish')).toBe('发布服务');
    expect(title('/portal')).toBe('登录门户');
    expect(title('/')).toBeUndefined();
  });
});
