/**
 * The file browser: the operator's file manager for the storages, inside the console. Its rules are
 * share links; its settings say whose storage permissions the console acts with. Every path goes
 * through the storages service (the one permission and path check); nothing runs but the links' expiry.
 */
import { randomBytes } from 'node:crypto';
import { filebrowserContract, Ret } from '@lucky/contracts';
import { fail } from '../../core/envelope.js';
import { defineModule } from '../../core/module.js';
import { asAppError, grantFor, principalOf } from './filebrowser.fs.js';
import { filebrowserRoutes } from './filebrowser.routes.js';
import { shareExpired } from './filebrowser.share.js';
import { statAt } from './filebrowser.storage.js';
import { stateOf } from './filebrowser.state.js';

export default defineModule({
  key: 'filebrowser',
  contract: filebrowserContract,
  services: { needs: ['storages'] },
  engine: async (mod) => new (await import('./filebrowser.engine.js')).ShareEngine(mod.services.storages),
  // A share names a place that is there now and the console's identity may read; its token is ours.
  prepare: async (rule, previous, mod) => {
    const storages = mod.services.storages;
    const g = grantFor(storages, principalOf(mod), rule.storage);
    let rp;
    try {
      rp = await storages.resolve(g, rule.path, 'read');
    } catch (err) {
      throw asAppError(err, rule.path);
    }
    if (!rp.exists) throw fail(Ret.badRequest, 'fbNotFound', { path: rp.path });
    return { ...rule, path: rp.path, token: previous?.token || randomBytes(24).toString('base64url') };
  },
  view: async (rule, _figures, _lang, mod) => {
    const storages = mod.services.storages;
    let target: 'file' | 'dir' | 'missing' = 'missing';
    const g = storages.grant(principalOf(mod), rule.data.storage, { remote: true });
    if (g) {
      try {
        const rp = await storages.resolve(g, rule.data.path, 'read');
        if (rp.exists) target = (await statAt(rp)).isDirectory() ? 'dir' : 'file';
      } catch {
        target = 'missing';
      }
    }
    return {
      url: `share/${rule.data.token}`,
      expired: shareExpired(rule.data),
      hasPassword: rule.data.password !== '',
      target,
      downloads: stateOf(mod).downloads.get(rule.key) ?? 0,
    };
  },
  removed: (key, mod) => {
    stateOf(mod).downloads.delete(key);
  },
  routes: filebrowserRoutes,
});
