/** Waking a device: the module's own route, and its "run now" for scheduled tasks. */
import { Ret, message, type Msg, type wolContract, type WolDevice } from '@lucky/contracts';
import { AppError, fail } from '../../core/envelope.js';
import type { OwnHandlers } from '../../core/module.js';
import type { StoredRule } from '../../core/rulestore.js';
import type { WolContext } from './index.js';

/** Wakes the device and says so in its log; a failure is logged and thrown as a ret 6. */
export async function wakeDevice(device: StoredRule<WolDevice>, mod: WolContext): Promise<{ sent: number; line: Msg }> {
  if (!device.data.enable) throw fail(Ret.failed, 'ruleSwitchedOff');
  const engine = await mod.engine();
  try {
    const sent = await engine.wake(device.key, device.data);
    const line: Msg = { key: 'wolSent', vars: { sent, target: `${device.data.broadcast}:${device.data.port}` } };
    mod.rules.logs.add(device.key, line);
    return { sent, line };
  } catch (err) {
    const detail = (err as Error).message;
    mod.rules.logs.add(device.key, { key: 'wolFailed', vars: { detail } });
    throw new AppError(Ret.failed, 'wolFailed', { detail });
  }
}

export function wolRoutes(mod: WolContext): OwnHandlers<typeof wolContract> {
  return {
    wake: async ({ params, req }) => {
      const { sent } = await wakeDevice(mod.rules.require(params.key), mod);
      return { msg: message(req.lang, 'wolSentShort', { sent }), sent };
    },
  };
}
