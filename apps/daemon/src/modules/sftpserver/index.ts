/**
 * SFTP server over the storages and storage users of storage management: one SSH listener per
 * rule that offers the SFTP subsystem and nothing else, storages mounted at the root or as
 * top-level folders. Logins are the storage users' (password, or a public key from their list);
 * every path and permission decision is the `storages` service's. The host keys are the daemon's,
 * made at the first need and kept in the data directory.
 */
import { join } from 'node:path';
import { sftpserverContract, type SftpFigures } from '@lucky/contracts';
import { checkMountedStorages } from '../../core/storagemounts.js';
import { defineModule, type ModuleContext } from '../../core/module.js';

type SftpContext = ModuleContext<typeof sftpserverContract, 'storages'>;

const IDLE: SftpFigures = { connections: 0, sessions: 0, requests: 0, uploads: 0, downloads: 0, bytesIn: 0, bytesOut: 0, denied: 0 };

async function hostKeys(mod: SftpContext) {
  const { hostKeysOf } = await import('./sftp.hostkeys.js');
  return hostKeysOf(join(mod.dataDir, 'sftp'), (m) => mod.say.info(m));
}

export default defineModule({
  key: 'sftpserver',
  contract: sftpserverContract,
  services: { needs: ['storages'] },
  engine: async (mod) =>
    new (await import('./sftp.engine.js')).SftpEngine({
      storages: mod.services.storages,
      loginGuard: mod.loginGuard,
      hostKeys: () => hostKeys(mod),
    }),
  listens: (rule) => [{ proto: 'tcp', address: rule.address, port: rule.port }],
  // The storages must exist (the schema cannot know them).
  prepare: (rule, _previous, mod) => {
    checkMountedStorages(mod.services.storages, rule.mounts, 'SFTP', true);
    return rule;
  },
  view: (rule, figures) => {
    const a = rule.data.address;
    const host = a ? (a.includes(':') ? `[${a}]` : a) : 'localhost';
    return { figures: (figures as SftpFigures | undefined) ?? IDLE, url: `sftp://${host}:${rule.data.port}/` };
  },
  routes: (mod) => ({
    hostKeys: async () => ({ keys: (await hostKeys(mod)).shown }),
  }),
  metrics: async (rules, m) => (await import('./sftp.metrics.js')).sftpMetrics(rules, m),
});
