/**
 * Wake-on-LAN devices have no long-running part: a device that is switched on can be woken, and
 * the engine remembers each device's last wake for the list.
 */
import { createSocket } from 'node:dgram';
import type { WolDevice } from '@lucky/contracts';
import type { Engine, RuleHandle } from '../../core/engine.js';
import { MsgError } from '../../lib/msgerror.js';
import { interfaceAddress } from './wol.interfaces.js';
import { magicPacket } from './wol.packet.js';

export interface WakeResult {
  at: number;
  sent: number;
}

export interface WolFigures {
  lastWake: WakeResult | null;
}

export class WolEngine implements Engine<WolDevice, unknown, WolFigures> {
  private last = new Map<string, WakeResult>();

  async start(_device: WolDevice, ctx: { key: string }): Promise<RuleHandle<WolDevice, WolFigures>> {
    return {
      stop: async () => undefined,
      // Nothing runs: an edited device is simply the new device.
      update: () => true,
      figures: () => ({ lastWake: this.last.get(ctx.key) ?? null }),
    };
  }

  /** Sends `repeat` packets for every MAC of the device; resolves with the count sent. */
  async wake(key: string, device: WolDevice): Promise<number> {
    const socket = createSocket({ type: 'udp4' });
    // From a chosen interface: its address is the source, so the packets leave through it.
    const source = device.interface ? interfaceAddress(device.interface) : undefined;
    if (device.interface && !source) throw new MsgError({ key: 'wolNoInterface', vars: { name: device.interface } });
    const targets = [...new Set([device.broadcast, ...device.targets])];
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.bind(0, source, () => {
          socket.off('error', reject);
          resolve();
        });
      });
      socket.setBroadcast(true);
      let sent = 0;
      for (let round = 0; round < device.repeat; round++) {
        for (const mac of device.macs) {
          const packet = magicPacket(mac, device.secureOn);
          for (const target of targets) {
            await new Promise<void>((resolve, reject) => socket.send(packet, device.port, target, (err) => (err ? reject(err) : resolve())));
            sent++;
          }
        }
        // Some NICs miss the first packet while the switch learns where they are.
        if (round + 1 < device.repeat) await new Promise((r) => setTimeout(r, 100));
      }
      this.last.set(key, { at: Date.now(), sent });
      return sent;
    } finally {
      socket.close();
    }
  }
}
