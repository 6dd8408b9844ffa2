export * from './envelope.js';
export * from './i18n.js';
export * from './route.js';
export * from './net.js';
export * from './modules.js';
export * from './core.js';
export * from './rules.js';
export * from './upgrades.js';
export * from './secrets.js';
export * from './http.js';
export * from './wol.js';
export * from './publish.js';
export * from './portal.js';
export * from './acme.js';
export * from './portforward.js';
export * from './ddns.js';
export * from './dnsproviders/index.js';
export * from './web.js';
export * from './stun.js';
export * from './storage.js';
export * from './ftpserver.js';
export * from './sftpserver.js';
export * from './sshkeys.js';
export * from './filebrowser.js';
export * from './cron.js';
export * from './wanji.js';
export * from './safe.js';
export * from './oidc.js';
export * from './infofeed.js';
export * from './openapi.js';

import type { z } from 'zod';
import { coreRoutes } from './core.js';
import type { ModuleKey } from './modules.js';
import type { ModuleContract } from './rules.js';
import { safeRoutes } from './safe.js';
import { wolContract, wolRoutes } from './wol.js';
import { portforwardContract, portforwardRoutes } from './portforward.js';
import { ddnsContract, ddnsRoutes } from './ddns.js';
import { webContract, webRoutes } from './web.js';
import { stunContract, stunRoutes } from './stun.js';
import { storageContract, storageRoutes, webdavContract, webdavRoutes } from './storage.js';
import { ftpserverContract, ftpserverRoutes } from './ftpserver.js';
import { sftpserverContract, sftpserverRoutes } from './sftpserver.js';
import { filebrowserContract, filebrowserRoutes } from './filebrowser.js';
import { cronContract, cronRoutes } from './cron.js';
import { acmeContract, acmeRoutes } from './acme.js';
import { wanjiContract, wanjiRoutes } from './wanji.js';
import { publishContract, publishRoutes } from './publish.js';
import { portalContract, portalRoutes } from './portal.js';

/** Every route table by tag; the daemon registers them and the OpenAPI document lists them. */
export const API = {
  core: coreRoutes,
  safe: safeRoutes,
  wol: wolRoutes,
  portforward: portforwardRoutes,
  ddns: ddnsRoutes,
  web: webRoutes,
  stun: stunRoutes,
  storage: storageRoutes,
  webdav: webdavRoutes,
  ftpserver: ftpserverRoutes,
  sftpserver: sftpserverRoutes,
  filebrowser: filebrowserRoutes,
  cron: cronRoutes,
  acme: acmeRoutes,
  wanji: wanjiRoutes,
  publish: publishRoutes,
  portal: portalRoutes,
} as const;

/** The contracts of the modules built on the module kit, by module key, each with its own types. */
export interface ModuleContracts {
  wol: typeof wolContract;
  ddns: typeof ddnsContract;
  portforward: typeof portforwardContract;
  web: typeof webContract;
  stun: typeof stunContract;
  storage: typeof storageContract;
  webdav: typeof webdavContract;
  ftpserver: typeof ftpserverContract;
  sftpserver: typeof sftpserverContract;
  filebrowser: typeof filebrowserContract;
  cron: typeof cronContract;
  acme: typeof acmeContract;
  wanji: typeof wanjiContract;
  publish: typeof publishContract;
  portal: typeof portalContract;
}
export type RuleModuleKey = keyof ModuleContracts;
/** A module's rule as create and update take it (defaults not yet applied). */
export type ModuleRuleInput<M extends RuleModuleKey> = z.input<ModuleContracts[M]['rule']>;
/** A module's rule as stored. */
export type ModuleRule<M extends RuleModuleKey> = z.output<ModuleContracts[M]['rule']>;

/** The contracts of the modules built on the module kit, by module key. */
export const MODULE_CONTRACTS: Partial<Record<ModuleKey, ModuleContract>> = {
  wol: wolContract,
  ddns: ddnsContract,
  portforward: portforwardContract,
  web: webContract,
  stun: stunContract,
  storage: storageContract,
  webdav: webdavContract,
  ftpserver: ftpserverContract,
  sftpserver: sftpserverContract,
  filebrowser: filebrowserContract,
  cron: cronContract,
  acme: acmeContract,
  wanji: wanjiContract,
  publish: publishContract,
  portal: portalContract,
} satisfies ModuleContracts;
