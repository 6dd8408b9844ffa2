/** Address ranges: parse an address to bytes and test membership; used by access control and filters. */
import { ipBytes } from '../lib/ip.js';

// Kept importable from here: access control, web and port forwarding read it with the ranges.
export { ipBytes };

export interface Cidr {
  bytes: Uint8Array;
  bits: number;
}

export function parseCidr(s: string): Cidr | null {
  const [addr = '', bitsText] = s.trim().split('/');
  const bytes = ipBytes(addr);
  if (!bytes) return null;
  const max = bytes.length * 8;
  const bits = bitsText === undefined ? max : Number(bitsText);
  if (!Number.isInteger(bits) || bits < 0 || bits > max) return null;
  return { bytes, bits };
}

export function inCidr(ip: Uint8Array, c: Cidr): boolean {
  if (ip.length !== c.bytes.length) return false;
  let bits = c.bits;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((ip[i]! & mask) !== (c.bytes[i]! & mask)) return false;
  }
  return true;
}

const LOCAL_RANGES = [
  '127.0.0.0/8',
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '169.254.0.0/16',
  '100.64.0.0/10', // carrier-grade NAT: still the operator's side of the ISP
  '::1/128',
  'fc00::/7',
  'fe80::/10',
].map((c) => parseCidr(c)!);

/** Loopback, RFC 1918, link-local, CGNAT or ULA: an address from the operator's own network. */
export function isLocalAddress(ip: string): boolean {
  const b = ipBytes(ip);
  return b !== null && LOCAL_RANGES.some((c) => inCidr(b, c));
}

/** A rule's IP filter (port forwarding, STUN), compiled once per rule version. */
export class IpFilter {
  private ranges: Cidr[];

  constructor(
    readonly mode: 'off' | 'blacklist' | 'whitelist',
    list: string[],
  ) {
    this.ranges = list.map((s) => parseCidr(s)).filter((c): c is Cidr => c !== null);
  }

  /** True when the address may connect. */
  allows(address: string | undefined): boolean {
    if (this.mode === 'off') return true;
    const b = address ? ipBytes(address) : null;
    const hit = b !== null && this.ranges.some((c) => inCidr(b, c));
    return this.mode === 'blacklist' ? !hit : hit;
  }
}
