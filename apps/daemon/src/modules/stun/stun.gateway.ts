/** The IPv4 default gateway, where NAT-PMP is asked when the rule names no gateway. */
import { readFileSync } from 'node:fs';
import { endianness } from 'node:os';

const RTF_UP = 0x1;
const RTF_GATEWAY = 0x2;

/**
 * From /proc/net/route: the default route with the lowest metric. Its addresses are the raw 32-bit
 * words in hex, so their byte order is the CPU's (big-endian MIPS routers exist).
 */
export function defaultGateway(routeTable = '/proc/net/route'): string | null {
  let text: string;
  try {
    text = readFileSync(routeTable, 'utf8');
  } catch {
    return null;
  }
  let best: { gw: string; metric: number } | null = null;
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 8) continue;
    const [, dest = '', gateway = '', flags = '', , , metric = '', mask = ''] = f;
    const fl = parseInt(flags, 16);
    if (dest !== '00000000' || mask !== '00000000' || (fl & RTF_UP) === 0 || (fl & RTF_GATEWAY) === 0) continue;
    const n = parseInt(gateway, 16);
    if (!Number.isFinite(n) || n === 0) continue;
    const bytes = [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
    const gw = (endianness() === 'LE' ? bytes.reverse() : bytes).join('.');
    const m = Number(metric);
    if (!best || m < best.metric) best = { gw, metric: m };
  }
  return best?.gw ?? null;
}
