/** Wake-on-LAN: devices stored as rules, woken with a UDP magic packet. The kit's reference module. */
import { wolContract } from '@lucky/contracts';
import { defineModule, type ModuleContext } from '../../core/module.js';
import type { WolEngine } from './wol.engine.js';
import { wakeDevice, wolRoutes } from './wol.routes.js';
import { shutdownOperation } from './wol.shutdown.js';

export type WolContext = ModuleContext<typeof wolContract, 'webhooks', WolEngine>;

export default defineModule({
  key: 'wol',
  contract: wolContract,
  // A device's shutdown URL is called through the webhooks service.
  services: { needs: ['webhooks'] },
  engine: async () => new (await import('./wol.engine.js')).WolEngine(),
  view: (_device, figures) => ({ lastWake: figures?.lastWake?.at ?? null }),
  run: async (device, mod) => (await wakeDevice(device, mod)).line,
  // Scheduled tasks shut a device down through the actions service: run('wol', key, 'shutdown').
  operations: { shutdown: shutdownOperation },
  routes: wolRoutes,
  metrics: async (devices, m, mod) => (await import('./wol.metrics.js')).wolMetrics(devices, m, mod),
});
