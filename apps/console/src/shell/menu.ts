/**
 * The menu of spec section 2 as data, so the left menu and the top-bar dropdown show the same
 * entries in the same order, and a test can check the rules without a browser.
 */
import type { MessageId } from '../i18n';

export type MenuEntry =
  | { kind: 'link'; id: string; label: MessageId; to: string }
  | { kind: 'action'; id: 'log' | 'logout'; label: MessageId }
  | { kind: 'group'; id: string; label: MessageId; children: { id: string; label: MessageId; to: string }[] }
  | { kind: 'divider'; id: string };

const link = (id: string, to: string): MenuEntry => ({ kind: 'link', id, label: `menu.${id}` as MessageId, to });

/** `modules` are the menu keys /api/modules/list answers with. */
export function buildMenu(modules: readonly string[]): MenuEntry[] {
  const on = (k: string) => modules.includes(k);
  const out: MenuEntry[] = [];
  let dividers = 0;
  const divider = () => {
    const last = out[out.length - 1];
    if (last && last.kind !== 'divider') out.push({ kind: 'divider', id: `divider-${dividers++}` });
  };

  out.push(link('status', '/status'));
  out.push({ kind: 'action', id: 'log', label: 'menu.log' });
  divider();
  // A published service is made of the entries below it (a DDNS task, a web rule, a certificate).
  if (on('publish')) out.push(link('publish', '/publish'));
  if (on('ddns')) out.push(link('ddns', '/ddns'));
  if (on('reverseproxy')) out.push(link('web', '/web'));
  // Its users sign in to the web rules above that require Lucky login.
  if (on('portal')) out.push(link('portal', '/portal'));
  if (on('portforward')) out.push(link('portforward', '/portforward'));
  if (on('stun')) out.push(link('stun', '/stun'));
  if (on('acme')) out.push(link('acme', '/acme'));
  if (on('webdav') || on('filebrowser')) {
    divider();
    const children = [
      { id: 'storagemanagement', to: '/storagemanagement', module: 'storagemanagement' },
      { id: 'webdav', to: '/webdav', module: 'webdav' },
      { id: 'ftpserver', to: '/ftpserver', module: 'ftpserver' },
      { id: 'sftpserver', to: '/sftpserver', module: 'sftpserver' },
      { id: 'filebrowser', to: '/filebrowser', module: 'filebrowser' },
    ]
      .filter((c) => on(c.module))
      .map((c) => ({ id: c.id, label: `menu.${c.id}` as MessageId, to: c.to }));
    out.push({ kind: 'group', id: 'storage', label: 'menu.storage', children });
  }
  if (on('wanji_admin')) out.push(link('wanjiadmin', '/wanjiadmin'));
  divider();
  if (on('wol')) out.push(link('wol', '/wol'));
  if (on('cron')) out.push(link('cron', '/cron'));
  out.push(link('safe', '/safe'));
  out.push(link('set', '/set'));
  out.push(link('about', '/about'));
  out.push({ kind: 'action', id: 'logout', label: 'menu.logout' });
  return out;
}
