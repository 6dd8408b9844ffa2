/**
 * The engine of the managed devices: one poller for all of them (bounded concurrency, a deadline
 * per poll) and the HTTP clients their calls share. A running device is an entry of the poller;
 * its figures are the last state polled. Imported when the first device starts (undici comes with it).
 */
import type { Lang, WanjiConfigure, WanjiDevice } from '@lucky/contracts';
import type { Engine, RuleContext, RuleHandle } from '../../core/engine.js';
import { HttpClients } from '../../lib/http/clients.js';
import { Poller, type DeviceFigures } from './wanji.poller.js';
import { remoteOf, type DeviceLink, type Remote } from './wanji.remote.js';

export class WanjiEngine implements Engine<WanjiDevice, WanjiConfigure, DeviceFigures> {
  private clients = new HttpClients();
  readonly poller: Poller;

  constructor(private settings: () => WanjiConfigure) {
    this.poller = new Poller(this.clients, settings);
  }

  async start(device: WanjiDevice, ctx: RuleContext<WanjiConfigure>): Promise<RuleHandle<WanjiDevice, DeviceFigures>> {
    this.poller.add(ctx.key, device, ctx);
    return {
      stop: async () => this.poller.remove(ctx.key),
      update: (next) => {
        this.poller.update(ctx.key, next);
        return true;
      },
      figures: () => this.poller.figures(ctx.key) as DeviceFigures,
    };
  }

  configure(): void {
    this.poller.configure();
  }

  /** Calls to one device in the reader's language, each bounded by `timeoutMs`. */
  remote(device: DeviceLink, lang: Lang, timeoutMs: number, o: { signal?: AbortSignal; maxBytes?: number } = {}): Remote {
    return remoteOf(this.clients, device, { timeoutMs, lang, ...o });
  }

  async close(): Promise<void> {
    this.poller.close();
    await this.clients.close();
  }
}
