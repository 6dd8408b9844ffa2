/**
 * FTP server over the storages and storage users of storage management: one listener per rule,
 * with its passive port range, explicit (AUTH TLS) or implicit FTPS, storages mounted at the root
 * or as top-level folders. Every path and permission decision is the `storages` service's;
 * certificates come from `certificates`; a passive address that follows a dynamic IP comes from a
 * DDNS task through `dnsProviders`.
 */
import { ftpserverContract, Ret, type FtpFigures, type FtpRule } from '@lucky/contracts';
import { fail } from '../../core/envelope.js';
import { checkMountedStorages } from '../../core/storagemounts.js';
import { defineModule, type ModuleContext } from '../../core/module.js';
import type { Endpoint } from '../../core/ports.js';
import { refuseBadCerts } from '../../core/rulecerts.js';

type FtpContext = ModuleContext<typeof ftpserverContract, 'storages' | 'certificates' | 'dnsProviders'>;

const IDLE: FtpFigures = { connections: 0, sessions: 0, commands: 0, uploads: 0, downloads: 0, bytesIn: 0, bytesOut: 0, denied: 0 };

/** The control port and every passive port: the rule owns them all in the port registry. */
export function ftpEndpoints(rule: FtpRule): Endpoint[] {
  const address = rule.address;
  const out: Endpoint[] = [{ proto: 'tcp', address, port: rule.port }];
  for (let p = rule.pasvMin; p <= rule.pasvMax; p++) out.push({ proto: 'tcp', address, port: p });
  return out;
}

/** What the schema cannot check: the storages and the DDNS task exist, every PEM certificate goes with its key. */
function checkRule(rule: FtpRule, mod: FtpContext): FtpRule {
  checkMountedStorages(mod.services.storages, rule.mounts, 'FTP', true);
  if (rule.pasvMode === 'ddns' && !mod.services.dnsProviders.tasks().some((t) => t.key === rule.pasvDdnsTask)) {
    throw fail(Ret.badRequest, 'ftpDdnsTaskUnknown', { task: rule.pasvDdnsTask });
  }
  refuseBadCerts(rule.certs, mod.services.certificates);
  return rule;
}

export default defineModule({
  key: 'ftpserver',
  contract: ftpserverContract,
  services: { needs: ['storages', 'certificates', 'dnsProviders'] },
  engine: async (mod) =>
    new (await import('./ftp.engine.js')).FtpEngine({
      storages: mod.services.storages,
      certificates: mod.services.certificates,
      dnsProviders: mod.services.dnsProviders,
      nativeRelay: mod.env.nativeRelay,
    }),
  listens: (rule) => ftpEndpoints(rule),
  prepare: (rule, _previous, mod) => checkRule(rule, mod),
  view: (rule, figures) => {
    const a = rule.data.address;
    const host = a ? (a.includes(':') ? `[${a}]` : a) : 'localhost';
    return { figures: (figures as FtpFigures | undefined) ?? IDLE, url: `${rule.data.tls === 'implicit' ? 'ftps' : 'ftp'}://${host}:${rule.data.port}/` };
  },
  metrics: async (rules, m) => (await import('./ftp.metrics.js')).ftpMetrics(rules, m),
});
