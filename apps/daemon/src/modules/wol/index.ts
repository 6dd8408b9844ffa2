/** Wake-on-LAN: devices stored as rules, woken with a UDP magic packet. */
import { Ret, ZWolConfigure, ZWolDevice, wolRoutes } from '@lucky/contracts';
import { AppError } from '../../core/envelope.js';
import type { ModuleDef } from '../../core/modulehost.js';
import { RuleModule } from '../../core/rulemodule.js';
import { RuleStore, SettingsStore } from '../../core/rulestore.js';
import { addRoute } from '../../core/routes.js';
import { formatTime } from '../../core/time.js';
import { WolEngine } from './wol.engine.js';

export const wolModule: ModuleDef = {
  key: 'wol',
  data: { rule: ZWolDevice, settings: ZWolConfigure },
  create({ db, log }) {
    const engine = new WolEngine();
    const rules = new RuleModule({
      store: new RuleStore(db, 'wol', ZWolDevice, log),
      settings: new SettingsStore(db, 'wol', ZWolConfigure),
      engine,
      log,
      extra: (r) => ({ lastWake: engine.lastWake(r.key)?.at ?? null }),
    });
    return {
      routes(app) {
        rules.register(app, wolRoutes);
        addRoute(app, wolRoutes.wake, async ({ params, req }) => {
          const device = rules.require(params.key);
          try {
            const sent = await engine.wake(params.key, device.data);
            rules.logs.add(params.key, `${formatTime(Date.now())} sent ${sent} magic packet(s) to ${device.data.broadcast}:${device.data.port}`);
            log.info({ key: params.key, name: device.data.name, sent }, 'wake-on-LAN packets sent');
            return { msg: req.lang === 'en_US' ? `Sent ${sent} packet(s)` : `已发送 ${sent} 个唤醒包`, sent };
          } catch (err) {
            const detail = (err as Error).message;
            rules.logs.add(params.key, `${formatTime(Date.now())} wake failed: ${detail}`);
            log.warn({ key: params.key, err }, 'wake-on-LAN failed');
            throw new AppError(Ret.failed, null, {}, detail);
          }
        });
      },
      start: () => rules.startAll(),
      stop: () => rules.stopAll(),
      connections: () => 0,
    };
  },
};
