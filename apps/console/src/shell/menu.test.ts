import { describe, expect, it } from 'vitest';
import { buildMenu, type MenuEntry } from './menu';

const ids = (m: MenuEntry[]) =>
  m.flatMap((e) => (e.kind === 'divider' ? ['|'] : e.kind === 'group' ? [`${e.id}[${e.children.map((c) => c.id).join(',')}]`] : [e.id]));

describe('menu', () => {
  it('follows the spec order with every module on', () => {
    const all = ['ddns', 'reverseproxy', 'portforward', 'stun', 'acme', 'webdav', 'filebrowser', 'storagemanagement', 'ftpserver', 'sftpserver', 'wanji_admin', 'cron', 'wol', 'publish', 'portal'];
    expect(ids(buildMenu(all))).toEqual([
      'status', 'log', '|', 'publish', 'ddns', 'web', 'portal', 'portforward', 'stun', 'acme', '|',
      'storage[storagemanagement,webdav,ftpserver,sftpserver,filebrowser]', 'wanjiadmin', '|', 'wol', 'cron', 'safe', 'set', 'about', 'logout',
    ]);
  });

  it('shows only the always-there entries with no module', () => {
    expect(ids(buildMenu([]))).toEqual(['status', 'log', '|', 'safe', 'set', 'about', 'logout']);
  });

  it('shows the storage submenu only with webdav or filebrowser', () => {
    expect(ids(buildMenu(['ftpserver', 'storagemanagement']))).toEqual(['status', 'log', '|', 'safe', 'set', 'about', 'logout']);
    expect(ids(buildMenu(['filebrowser', 'ftpserver']))).toEqual(['status', 'log', '|', 'storage[ftpserver,filebrowser]', '|', 'safe', 'set', 'about', 'logout']);
    expect(ids(buildMenu(['webdav']))).toEqual(['status', 'log', '|', 'storage[webdav]', '|', 'safe', 'set', 'about', 'logout']);
    expect(buildMenu(['webdav', 'sftpserver']).find((e) => e.id === 'storage')).toMatchObject({ children: [{ id: 'webdav' }, { id: 'sftpserver', label: 'menu.sftpserver', to: '/sftpserver' }] });
  });

  it('shows the login portal after the web services, only with its module on', () => {
    expect(ids(buildMenu(['reverseproxy', 'portal']))).toEqual(['status', 'log', '|', 'web', 'portal', '|', 'safe', 'set', 'about', 'logout']);
    expect(buildMenu(['portal']).find((e) => e.id === 'portal')).toMatchObject({ kind: 'link', label: 'menu.portal', to: '/portal' });
    expect(ids(buildMenu(['reverseproxy']))).not.toContain('portal');
  });

  it('uses the menu keys of the module list (reverseproxy → /web, wanji_admin → /wanjiadmin)', () => {
    const m = buildMenu(['reverseproxy', 'wanji_admin']);
    expect(m.find((e) => e.id === 'web')).toMatchObject({ kind: 'link', to: '/web' });
    expect(m.find((e) => e.id === 'wanjiadmin')).toMatchObject({ kind: 'link', to: '/wanjiadmin' });
  });
});
