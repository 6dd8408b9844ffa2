/** Address ranges: parse an address to bytes and test membership; used by access control and filters. */
import { isIPv4, isIPv6 } from '@lucky/contracts/runtime';

/** 4 or 16 bytes; IPv4-mapped IPv6 (::ffff:a.b.c.d) comes back as its IPv4 form. */
export function ipBytes(ip: string): Uint8Array | null {
  const zone = ip.indexOf('%');
  if (zone !== -1) ip = ip.slice(0, zone);
  if (isIPv4(ip)) return Uint8Array.from(ip.split('.').map(Number));
  if (!isIPv6(ip)) return null;
  let tailV4: number[] = [];
  let text = ip;
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    tailV4 = text.slice(lastColon + 1).split('.').map(Number);
    text = text.slice(0, lastColon + 1) + '0:0';
  }
  const [head = '', tail] = text.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const groups = [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t].map((g) => parseInt(g, 16));
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    out[i * 2] = g >> 8;
    out[i * 2 + 1] = g & 0xff;
  });
  if (tailV4.length === 4) out.set(tailV4, 12);
  const mapped = out.slice(0, 10).every((b) => b === 0) && out[10] === 0xff && out[11] === 0xff;
  return mapped ? out.slice(12) : out;
}

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
