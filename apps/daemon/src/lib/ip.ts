/** Addresses as bytes: what DNS records carry and what address ranges compare. */
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

/** 4 or 16 bytes as text; IPv6 in its one RFC 5952 form (the longest run of 2+ zero groups is ::, the first on a tie). */
export function ipText(b: Uint8Array): string {
  if (b.length === 4) return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
  const g: number[] = [];
  for (let i = 0; i < 16; i += 2) g.push((b[i]! << 8) | b[i + 1]!);
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = g.map((x) => x.toString(16));
  if (best === -1) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

/** `host:port`, the host in brackets when it is IPv6: how logs and statuses write an address. */
export function fmtAddr(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** A socket's remote address as users read it: an IPv4 client on a dual-stack socket without its `::ffff:`. */
export function plainAddress(a: string | undefined): string {
  if (!a) return '';
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  return (m ? m[1]! : a).toLowerCase();
}
