/**
 * "Find devices": one scan at a time, of one interface's IPv4 subnet, only when the user asks.
 * The neighbour table first (what the kernel knows already shows at once), then the sweep of the
 * subnet's addresses (wol.sweep.ts), reading the table after each batch, then names. Every packet
 * goes to an address of the subnet, or to the link-local mDNS group out of that interface.
 */
import { Ret, WOL_SCAN_MIN_PREFIX, renderMsg, type Lang, type Msg, type WolScan, type WolScanDevice } from '@lucky/contracts';
import { fail } from '../../core/envelope.js';
import { msgOf } from '../../lib/msgerror.js';
import { wolInterfaces, type WolInterface } from './wol.interfaces.js';
import { mdnsNames, reverseNames } from './wol.names.js';
import { readNeighbours } from './wol.neighbours.js';
import { vendorOf } from './wol.oui.js';
import { hostAddresses, inSubnet, ipv4ToInt, subnetOf, type Subnet } from './wol.subnet.js';
import { sweep } from './wol.sweep.js';

export interface ScanPlan {
  iface: WolInterface;
  subnet: Subnet;
  /** Every address the sweep sends to: the subnet's hosts but our own. */
  targets: string[];
}

/** What the user chose, checked: a refused plan sends nothing. */
export function planScan(name: string, address?: string, interfaces: WolInterface[] = wolInterfaces()): ScanPlan {
  const iface = interfaces.find((i) => i.name === name && (address === undefined || i.address === address));
  if (!iface) throw fail(Ret.badRequest, 'wolNoInterface', { name: address ? `${name} (${address})` : name });
  if (iface.internal) throw fail(Ret.badRequest, 'wolScanLoopback', { name });
  if (iface.prefix < WOL_SCAN_MIN_PREFIX) throw fail(Ret.badRequest, 'wolScanTooLarge', { subnet: iface.subnet, max: WOL_SCAN_MIN_PREFIX });
  const subnet = subnetOf(iface.address, iface.prefix);
  const targets = hostAddresses(subnet, iface.address);
  if (targets.length === 0) throw fail(Ret.badRequest, 'wolScanNoHosts', { subnet: iface.subnet });
  return { iface, subnet, targets };
}

export interface ScanTimings {
  batch: number;
  gapMs: number;
  settleMs: number;
  /** For PTR and mDNS answers together. */
  namesMs: number;
  /** The whole scan ends by then, whatever is left. */
  limitMs: number;
}

export const SCAN_TIMINGS: ScanTimings = { batch: 128, gapMs: 1000, settleMs: 1500, namesMs: 2500, limitMs: 30_000 };

type Found = Omit<WolScanDevice, 'known' | 'vendor'>;

export class ScanJob {
  private phase: WolScan['phase'] = 'neighbours';
  private probed = 0;
  private failure: Msg | null = null;
  private finishedAt: number | null = null;
  private readonly found = new Map<string, Found>();
  private readonly startedAt = Date.now();
  readonly done: Promise<void>;

  constructor(
    readonly plan: ScanPlan,
    private readonly t: ScanTimings = SCAN_TIMINGS,
  ) {
    this.done = this.run();
  }

  get running(): boolean {
    return this.finishedAt === null;
  }

  private async run(): Promise<void> {
    const limit = AbortSignal.timeout(this.t.limitMs);
    try {
      await this.readTable();
      this.phase = 'sweep';
      const { iface, targets } = this.plan;
      await sweep({
        from: iface.address,
        targets,
        batch: this.t.batch,
        gapMs: this.t.gapMs,
        settleMs: this.t.settleMs,
        signal: limit,
        onProgress: (n) => {
          this.probed = n;
          void this.readTable().catch(() => undefined);
        },
      });
      await this.readTable();
      this.phase = 'names';
      const addrs = [...this.found.keys()];
      const budget = Math.max(0, Math.min(this.t.namesMs, this.startedAt + this.t.limitMs - Date.now()));
      const [dns, mdns] = await Promise.all([reverseNames(addrs, budget), mdnsNames(iface.address, addrs, budget)]);
      for (const [ip, f] of this.found) {
        f.dnsName = dns.get(ip) ?? '';
        f.mdnsName = mdns.get(ip) ?? '';
      }
      this.phase = 'done';
    } catch (err) {
      this.failure = { key: 'wolScanFailed', vars: { detail: msgOf(err) } };
    } finally {
      this.finishedAt = Date.now();
    }
  }

  /** Entries of the chosen interface inside its subnet only: another link's neighbours are not ours to list. */
  private async readTable(): Promise<void> {
    const { iface, subnet } = this.plan;
    for (const n of await readNeighbours()) {
      if (n.device !== iface.name || n.address === iface.address || !inSubnet(subnet, n.address)) continue;
      const had = this.found.get(n.address);
      if (had) had.mac = n.mac;
      else this.found.set(n.address, { address: n.address, mac: n.mac, dnsName: '', mdnsName: '' });
    }
  }

  /** The answer, in the reader's language; `known` maps a MAC (lower case, colons) to a saved device's key. */
  view(lang: Lang, known: Map<string, string>): WolScan {
    const { iface } = this.plan;
    const devices = [...this.found.values()]
      .sort((a, b) => ipv4ToInt(a.address) - ipv4ToInt(b.address))
      .map((f) => ({ ...f, vendor: vendorOf(f.mac), known: known.get(f.mac) ?? null }));
    return {
      interface: iface.name,
      address: iface.address,
      subnet: iface.subnet,
      broadcast: iface.broadcast,
      state: this.finishedAt === null ? 'running' : this.failure ? 'failed' : 'done',
      phase: this.phase,
      probed: this.probed,
      total: this.plan.targets.length,
      startedAt: this.startedAt,
      finishedAt: this.finishedAt,
      msg: this.failure ? renderMsg(lang, this.failure) : '',
      devices,
    };
  }
}

/** The module's one scan: a new one only when none runs; the same request while it runs joins it. */
export class Scanner {
  private job: ScanJob | null = null;

  constructor(private readonly timings: ScanTimings = SCAN_TIMINGS) {}

  start(name: string, address?: string): ScanJob {
    if (this.job?.running) {
      const p = this.job.plan.iface;
      if (p.name === name && (address === undefined || p.address === address)) return this.job;
      throw fail(Ret.notAvailable, 'wolScanBusy', { name: p.name });
    }
    this.job = new ScanJob(planScan(name, address), this.timings);
    return this.job;
  }

  current(): ScanJob | null {
    return this.job;
  }
}

/** Saved devices by MAC, in the scan's form of a MAC. */
export function knownMacs(devices: Array<{ key: string; data: { macs: string[] } }>): Map<string, string> {
  const out = new Map<string, string>();
  for (const d of devices) for (const m of d.data.macs) out.set(m.toLowerCase().replace(/-/g, ':'), d.key);
  return out;
}
