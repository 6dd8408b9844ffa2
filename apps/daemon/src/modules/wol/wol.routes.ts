/** Waking a device: the module's own route, and its "run now" for scheduled tasks. */
import { Ret, message, type Msg, type MsgValue, type wolContract, type WolDevice } from '@lucky/contracts';
import { MsgError } from '../../lib/msgerror.js';
import { wolInterfaces } from './wol.interfaces.js';
import { probe, probesOf } from './wol.online.js';
import { AppError, fail } from '../../core/envelope.js';
import type { OwnHandlers } from '../../core/module.js';
import type { StoredRule } from '../../core/rulestore.js';
import type { WolContext } from './index.js';
import { knownMacs, Scanner } from './wol.scan.js';
import { shutdownDevice } from './wol.shutdown.js';

/** Wakes the device and says so in its log; a failure is logged and thrown as a ret 6. */
export async function wakeDevice(device: StoredRule<WolDevice>, mod: WolContext): Promise<{ sent: number; line: Msg }> {
  if (!device.data.enable) throw fail(Ret.failed, 'ruleSwitchedOff');
  const engine = await mod.engine();
  try {
    const sent = await engine.wake(device.key, device.data);
    const targets = [...new Set([device.data.broadcast, ...device.data.targets])].map((t) => `${t}:${device.data.port}`).join(', ');
    const line: Msg = { key: 'wolSent', vars: { sent, target: targets } };
    mod.rules.logs.add(device.key, line);
    return { sent, line };
  } catch (err) {
    const detail: MsgValue = err instanceof MsgError ? err.msg : (err as Error).message;
    mod.rules.logs.add(device.key, { key: 'wolFailed', vars: { detail } });
    throw new AppError(Ret.failed, 'wolFailed', { detail });
  }
}

export function wolRoutes(mod: WolContext): OwnHandlers<typeof wolContract> {
  const probes = probesOf(mod);
  const scanner = new Scanner();
  return {
    wake: async ({ params, req }) => {
      const { sent } = await wakeDevice(mod.rules.require(params.key), mod);
      return { msg: message(req.lang, 'wolSentShort', { sent }), sent };
    },
    wakeWait: async ({ params, query, req }) => {
      const device = mod.rules.require(params.key);
      if (device.data.checkHost === '') throw fail(Ret.badRequest, 'wolNoCheck');
      const t0 = Date.now();
      await wakeDevice(device, mod);
      probes.forget(device.key);
      // One probe a second until it answers; the packets go again every 30 s (a NIC may miss them).
      let lastWake = t0;
      while (Date.now() - t0 < query.timeout * 1000) {
        if (await probe(device.data, 1000)) {
          const ms = Date.now() - t0;
          mod.rules.logs.add(device.key, { key: 'wolOnlineAfter', vars: { seconds: (ms / 1000).toFixed(1) } });
          return { msg: message(req.lang, 'wolOnlineAfter', { seconds: (ms / 1000).toFixed(1) }), online: true, ms };
        }
        if (Date.now() - lastWake > 30_000) {
          lastWake = Date.now();
          await wakeDevice(device, mod).catch(() => undefined);
        }
        await new Promise((r) => setTimeout(r, 1000));
      }
      mod.rules.logs.add(device.key, { key: 'wolStillOffline', vars: { seconds: query.timeout } });
      return { msg: message(req.lang, 'wolStillOffline', { seconds: query.timeout }), online: false, ms: Date.now() - t0 };
    },
    shutdown: async ({ params, req }) => {
      const r = await shutdownDevice(mod.rules.require(params.key), mod);
      const msg = message(req.lang, r.ok ? 'wolShutdownDone' : 'wolShutdownFailed', { detail: r.msg });
      return { msg, ok: r.ok, exitCode: r.exitCode, httpStatus: r.httpStatus, output: r.output, truncated: r.truncated };
    },
    online: async () => ({ online: await probes.states(mod.rules.list().map((r) => ({ key: r.key, enable: r.data.enable, checkHost: r.data.checkHost, checkPort: r.data.checkPort }))) }),
    interfaces: async () => ({ interfaces: wolInterfaces() }),
    scan: async ({ body, req }) => ({ scan: scanner.start(body.interface, body.address).view(req.lang, knownMacs(mod.rules.list())) }),
    scanState: async ({ req }) => ({ scan: scanner.current()?.view(req.lang, knownMacs(mod.rules.list())) ?? null }),
  };
}
