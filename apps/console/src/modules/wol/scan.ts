/** The device finder's logic: which interfaces the picker offers, and a found device as a new WOL device. */
import { WOL_SCAN_MIN_PREFIX, type RouteInput, type WolInterface, type WolScan, type WolScanDevice, type wolRoutes } from '@lucky/contracts';

/** One choice per (interface, IPv4 network); loopback is not offered, a network past /22 is shown but cannot be picked. */
export function scanChoices(ifs: WolInterface[]): Array<WolInterface & { value: string; tooLarge: boolean }> {
  return ifs.filter((i) => !i.internal).map((i) => ({ ...i, value: `${i.name}|${i.address}`, tooLarge: i.prefix < WOL_SCAN_MIN_PREFIX }));
}

/** The best name a device told us: its mDNS name without `.local`, the first label of its DNS name, else vendor and address. */
export function deviceName(d: WolScanDevice): string {
  const mdns = d.mdnsName.replace(/\.local\.?$/i, '');
  const name = mdns || d.dnsName.split('.')[0] || (d.vendor ? `${d.vendor} ${d.address}` : d.address);
  return name.slice(0, 64);
}

/** What "add" saves: the MAC, the scanned interface and its broadcast, the address checked by ping, the vendor as a note. */
export function scannedDevice(d: WolScanDevice, scan: Pick<WolScan, 'interface' | 'broadcast'>): RouteInput<typeof wolRoutes.create>['body'] {
  return { name: deviceName(d), macs: [d.mac], broadcast: scan.broadcast, interface: scan.interface, checkHost: d.address, checkPort: 0, note: d.vendor };
}
