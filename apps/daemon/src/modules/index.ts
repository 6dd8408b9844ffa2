/**
 * The one table of modules: each is imported only when it is switched on or one of the services it
 * provides is asked for. A module of the spec that is not here yet still has its switch, and its
 * routes answer "not available yet".
 */
import type { ModuleEntry } from '../core/modulehost.js';

export const MODULE_TABLE: readonly ModuleEntry[] = [
  { key: 'wol', load: () => import('./wol/index.js') },
  { key: 'web', load: () => import('./web/index.js') },
  { key: 'ddns', provides: ['dnsProviders'], load: () => import('./ddns/index.js') },
  { key: 'portforward', load: () => import('./portforward/index.js') },
  { key: 'stun', provides: ['portMappings', 'stunAddresses'], load: () => import('./stun/index.js') },
  { key: 'acme', provides: ['certificateOrders'], keeps: ['acmeAccounts'], load: () => import('./acme/index.js') },
  { key: 'storage', provides: ['storages'], load: () => import('./storage/index.js') },
  { key: 'webdav', load: () => import('./webdav/index.js') },
  { key: 'ftpserver', load: () => import('./ftpserver/index.js') },
  { key: 'sftpserver', load: () => import('./sftpserver/index.js') },
  { key: 'filebrowser', load: () => import('./filebrowser/index.js') },
  { key: 'cron', load: () => import('./cron/index.js') },
  { key: 'wanji', load: () => import('./wanji/index.js') },
  { key: 'publish', load: () => import('./publish/index.js') },
  { key: 'portal', provides: ['portal'], load: () => import('./portal/index.js') },
];
