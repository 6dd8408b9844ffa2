/** The IPv4 interfaces packets can leave from, each with its network: broadcast address and subnet. */
import { networkInterfaces } from 'node:os';
import type { WolInterface } from '@lucky/contracts';
import { broadcastOf, prefixOf, subnetOf, subnetText } from './wol.subnet.js';

export type { WolInterface };

export function wolInterfaces(): WolInterface[] {
  const out: WolInterface[] = [];
  for (const [name, addrs] of Object.entries(networkInterfaces())) {
    for (const a of addrs ?? []) {
      if (a.family !== 'IPv4') continue;
      const prefix = prefixOf(a.netmask);
      const subnet = subnetOf(a.address, prefix);
      out.push({ name, address: a.address, broadcast: broadcastOf(subnet), subnet: subnetText(subnet), prefix, internal: a.internal });
    }
  }
  return out;
}

/** The interface's first IPv4 address, or undefined when it has none (or does not exist). */
export function interfaceAddress(name: string): string | undefined {
  return wolInterfaces().find((i) => i.name === name)?.address;
}
