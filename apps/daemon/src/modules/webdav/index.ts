/**
 * WebDAV (RFC 4918 class 1 and 2) over the storages and storage users of storage management: one
 * listener per rule, HTTP or HTTPS, storages mounted at the root or as top-level folders. Every path
 * and permission decision is the `storages` service's; certificates come from `certificates`.
 */
import { webdavContract, type WebdavFigures, type WebdavRule } from '@lucky/contracts';
import { refuseBadCerts } from '../../core/rulecerts.js';
import { checkMountedStorages } from '../../core/storagemounts.js';
import { defineModule, type ModuleContext } from '../../core/module.js';
import type { Endpoint } from '../../core/ports.js';

type WebdavContext = ModuleContext<typeof webdavContract, 'storages' | 'certificates'>;

const IDLE: WebdavFigures = { connections: 0, requests: 0, bytesIn: 0, bytesOut: 0, denied: 0 };

function endpoint(rule: WebdavRule): Endpoint {
  return { proto: 'tcp', address: rule.address || '0.0.0.0', port: rule.port };
}

/** What the schema cannot check: every mounted storage exists, every PEM certificate goes with its key. */
function checkRule(rule: WebdavRule, mod: WebdavContext): WebdavRule {
  checkMountedStorages(mod.services.storages, rule.mounts, 'WebDAV', true);
  refuseBadCerts(rule.certs, mod.services.certificates);
  return rule;
}

export default defineModule({
  key: 'webdav',
  contract: webdavContract,
  services: { needs: ['storages', 'certificates'] },
  engine: async (mod) =>
    new (await import('./webdav.engine.js')).WebdavEngine({ storages: mod.services.storages, certificates: mod.services.certificates, dataDir: mod.dataDir, nativeFiles: mod.env.nativeRelay }),
  listens: (rule) => [endpoint(rule)],
  prepare: (rule, _previous, mod) => checkRule(rule, mod),
  view: (rule, figures) => {
    const host = rule.data.address ? (rule.data.address.includes(':') ? `[${rule.data.address}]` : rule.data.address) : 'localhost';
    return { figures: (figures as WebdavFigures | undefined) ?? IDLE, url: `${rule.data.tls ? 'https' : 'http'}://${host}:${rule.data.port}${rule.data.prefix === '/' ? '/' : `${rule.data.prefix}/`}` };
  },
  metrics: async (rules, m) => (await import('./webdav.metrics.js')).webdavMetrics(rules, m),
});
