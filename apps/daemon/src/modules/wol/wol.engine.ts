/**
 * Sends magic packets. A device has no long-running part, so its status only says whether it can
 * be woken; the last wake result is kept for the list.
 */
import { createSocket } from 'node:dgram';
import type { RuleStatus, WolDevice } from '@lucky/contracts';
import type { RuleEngine } from '../../core/engine.js';
import { magicPacket } from './wol.packet.js';

export interface WakeResult {
  at: number;
  sent: number;
  error: string;
}

export class WolEngine implements RuleEngine<WolDevice> {
  private ready = new Map<string, number>();
  private results = new Map<string, WakeResult>();

  async start(key: string): Promise<void> {
    this.ready.set(key, Date.now());
  }

  async stop(key: string): Promise<void> {
    this.ready.delete(key);
  }

  status(key: string): RuleStatus {
    const since = this.ready.get(key);
    const last = this.results.get(key);
    if (since === undefined) return { state: 'stopped', message: '', since: Date.now() };
    if (last?.error) return { state: 'error', message: last.error, since: last.at };
    return { state: 'running', message: '', since };
  }

  lastWake(key: string): WakeResult | undefined {
    return this.results.get(key);
  }

  /** Sends `repeat` packets for every MAC of the device; resolves with the count sent. */
  async wake(key: string, device: WolDevice): Promise<number> {
    const socket = createSocket({ type: 'udp4' });
    let sent = 0;
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.bind(0, () => {
          socket.off('error', reject);
          resolve();
        });
      });
      socket.setBroadcast(true);
      for (let round = 0; round < device.repeat; round++) {
        for (const mac of device.macs) {
          const packet = magicPacket(mac, device.secureOn);
          await new Promise<void>((resolve, reject) =>
            socket.send(packet, device.port, device.broadcast, (err) => (err ? reject(err) : resolve())),
          );
          sent++;
        }
        if (round + 1 < device.repeat) await new Promise((r) => setTimeout(r, 100));
      }
      this.results.set(key, { at: Date.now(), sent, error: '' });
      return sent;
    } catch (err) {
      this.results.set(key, { at: Date.now(), sent, error: (err as Error).message });
      throw err;
    } finally {
      socket.close();
    }
  }

  async close(): Promise<void> {
    this.ready.clear();
  }
}
