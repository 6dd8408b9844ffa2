/** The IPv4 interfaces packets can leave from, each with the broadcast address of its network. */
import { networkInterfaces } from 'node:os';

export interface WolInterface {
  name: string;
  address: string;
  broadcast: string;
}

function broadcastOf(address: string, netmask: string): string {
  const a = address.split('.').map(Number);
  const m = netmask.split('.').map(Number);
  return a.map((x, i) => (x | (~m[i]! & 255)) >>> 0).join('.');
}

export function wolInterfaces(): WolInterface[] {
  const out: WolInterface[] = [];
  for (const [name, addrs] of Object.entries(networkInterfaces())) {
    for (const a of addrs ?? []) if (a.family === 'IPv4') out.push({ name, address: a.address, broadcast: broadcastOf(a.address, a.netmask) });
  }
  return out;
}

/** The interface's first IPv4 address, or undefined when it has none (or does not exist). */
export function interfaceAddress(name: string): string | undefined {
  return wolInterfaces().find((i) => i.name === name)?.address;
}
