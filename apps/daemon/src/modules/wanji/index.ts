/**
 * Wanji admin: other Lucky devices, each a rule (its URL, its API token, how its certificate is
 * trusted), polled in the background and driven through their own API from here.
 */
import { emptyDeviceState, renderMsg, wanjiContract } from '@lucky/contracts';
import { defineModule, type ModuleContext } from '../../core/module.js';
import type { WanjiEngine } from './wanji.engine.js';
import { checkTls, probe, storedPin, wanjiRoutes } from './wanji.routes.js';

export type WanjiContext = ModuleContext<typeof wanjiContract, 'audit', WanjiEngine>;

export default defineModule({
  key: 'wanji',
  contract: wanjiContract,
  // Each remote action is written to the daemon's audit log, one entry per device.
  services: { needs: ['audit'] },
  engine: async (mod) => new (await import('./wanji.engine.js')).WanjiEngine(() => mod.rules.settings()),
  // A device switched on is saved only once it answers with its token: a wrong address or token is said at once.
  prepare: async (device, previous, mod) => {
    checkTls(device);
    // One spelling of the address and the pin: the token stays behind its mask only while they do.
    const next = { ...device, url: device.url.replace(/\/+$/, ''), pin: storedPin(device.pin) };
    const relinked = !previous || (['url', 'token', 'pin', 'ca'] as const).some((f) => next[f] !== previous[f]);
    if (next.enable && (relinked || !previous.enable)) await probe(mod, next, 'en_US');
    return next;
  },
  view: (_device, figures, lang) => ({ state: figures ? { ...figures, error: figures.error ? renderMsg(lang, figures.error) : '' } : emptyDeviceState() }),
  routes: wanjiRoutes,
});
