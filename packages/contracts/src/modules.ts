/**
 * The fixed module list. `key` is the REST path segment (`/api/<key>/...`), `menuKey` the name the
 * module list answers with (what the console's menu checks), `route` the console route.
 */
export const MODULES = [
  { key: 'ddns', menuKey: 'ddns', route: '/ddns' },
  { key: 'web', menuKey: 'reverseproxy', route: '/web' },
  { key: 'portforward', menuKey: 'portforward', route: '/portforward' },
  { key: 'stun', menuKey: 'stun', route: '/stun' },
  { key: 'acme', menuKey: 'acme', route: '/acme' },
  { key: 'storage', menuKey: 'storagemanagement', route: '/storagemanagement' },
  { key: 'webdav', menuKey: 'webdav', route: '/webdav' },
  { key: 'ftpserver', menuKey: 'ftpserver', route: '/ftpserver' },
  { key: 'sftpserver', menuKey: 'sftpserver', route: '/sftpserver' },
  { key: 'filebrowser', menuKey: 'filebrowser', route: '/filebrowser' },
  { key: 'wanji', menuKey: 'wanji_admin', route: '/wanjiadmin' },
  { key: 'wol', menuKey: 'wol', route: '/wol' },
  { key: 'cron', menuKey: 'cron', route: '/cron' },
  { key: 'publish', menuKey: 'publish', route: '/publish' },
  { key: 'portal', menuKey: 'portal', route: '/portal' },
] as const;

export type ModuleKey = (typeof MODULES)[number]['key'];
export type ModuleMenuKey = (typeof MODULES)[number]['menuKey'];
export const MODULE_KEYS = MODULES.map((m) => m.key) as unknown as readonly [ModuleKey, ...ModuleKey[]];

/** The console adds a module route only when its name is in this list (spec section 2). */
export const CONSOLE_MODULE_NAMES = [
  'diy',
  'acme',
  'ftpserver',
  'sftpserver',
  'webdav',
  'cron',
  'ddns',
  'portforward',
  'web',
  'wol',
  'stun',
  'filebrowser',
  'storagemanagement',
  'publish',
  'portal',
] as const;
