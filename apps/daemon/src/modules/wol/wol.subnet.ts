/** IPv4 subnets as numbers: which addresses a scan may probe, and nothing past them. */

export function ipv4ToInt(ip: string): number {
  const p = ip.split('.').map(Number);
  return (((p[0]! << 24) | (p[1]! << 16) | (p[2]! << 8) | p[3]!) >>> 0);
}

export function intToIpv4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

export function prefixOf(netmask: string): number {
  let n = ipv4ToInt(netmask);
  let bits = 0;
  while (n & 0x80000000) {
    bits++;
    n = (n << 1) >>> 0;
  }
  return bits;
}

export interface Subnet {
  /** The network address as a number. */
  network: number;
  prefix: number;
}

function mask(prefix: number): number {
  return prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
}

export function subnetOf(address: string, prefix: number): Subnet {
  return { network: (ipv4ToInt(address) & mask(prefix)) >>> 0, prefix };
}

export function subnetText(s: Subnet): string {
  return `${intToIpv4(s.network)}/${s.prefix}`;
}

export function broadcastOf(s: Subnet): string {
  return intToIpv4((s.network | ~mask(s.prefix)) >>> 0);
}

export function inSubnet(s: Subnet, ip: string): boolean {
  return ((ipv4ToInt(ip) & mask(s.prefix)) >>> 0) === s.network;
}

/**
 * The addresses a sweep probes: every host address of the subnet but `own`. A /31 has two hosts
 * and no broadcast (RFC 3021); a /32 has none.
 */
export function hostAddresses(s: Subnet, own: string): string[] {
  const size = 2 ** (32 - s.prefix);
  const [first, last] = s.prefix >= 31 ? [0, size - 1] : [1, size - 2];
  const out: string[] = [];
  const mine = ipv4ToInt(own);
  for (let i = first; i <= last; i++) {
    const n = (s.network + i) >>> 0;
    if (n !== mine) out.push(intToIpv4(n));
  }
  return out;
}

/** The name a multicast DNS reverse query asks for (RFC 6762 section 4). */
export function reverseName(ip: string): string {
  return `${ip.split('.').reverse().join('.')}.in-addr.arpa`;
}
