/**
 * Network interfaces with the IPv6 details os.networkInterfaces() leaves out (temporary and
 * deprecated addresses), read from /proc/net/if_inet6 where Linux has it.
 */
import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import type { NetInterface } from '@lucky/contracts';
import { ipBytes } from './cidr.js';

// Linux IFA_F_* flags as printed in /proc/net/if_inet6.
const IFA_F_TEMPORARY = 0x01;
const IFA_F_DEPRECATED = 0x20;

function ipv6Key(ip: string): string {
  const b = ipBytes(ip);
  return b ? Buffer.from(b).toString('hex') : ip;
}

function readInet6Flags(): Map<string, number> {
  const flags = new Map<string, number>();
  try {
    for (const line of readFileSync('/proc/net/if_inet6', 'utf8').split('\n')) {
      const [hex, , , , flagHex] = line.trim().split(/\s+/);
      if (hex && flagHex) flags.set(hex, parseInt(flagHex, 16));
    }
  } catch {
    // Not Linux, or /proc hidden: addresses are reported without those flags.
  }
  return flags;
}

function scopeOf(ip: string): NetInterface['ipv6'][number]['scope'] {
  const b = ipBytes(ip);
  if (!b || b.length !== 16) return 'other';
  if (b.every((x, i) => (i === 15 ? x === 1 : x === 0))) return 'loopback';
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) return 'link';
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0xc0) return 'site';
  if ((b[0]! & 0xfe) === 0xfc) return 'ula';
  if ((b[0]! & 0xe0) === 0x20) return 'global';
  return 'other';
}

export function listInterfaces(): NetInterface[] {
  const flags = readInet6Flags();
  const out: NetInterface[] = [];
  for (const [name, addrs] of Object.entries(networkInterfaces())) {
    if (!addrs) continue;
    const iface: NetInterface = { name, mac: addrs[0]?.mac ?? '', internal: addrs[0]?.internal ?? false, ipv4: [], ipv6: [] };
    for (const a of addrs) {
      const prefix = Number(a.cidr?.split('/')[1] ?? 0);
      if (a.family === 'IPv4') iface.ipv4.push({ address: a.address, prefix });
      else {
        const f = flags.get(ipv6Key(a.address)) ?? 0;
        iface.ipv6.push({
          address: a.address,
          prefix,
          scope: scopeOf(a.address),
          temporary: (f & IFA_F_TEMPORARY) !== 0,
          deprecated: (f & IFA_F_DEPRECATED) !== 0,
        });
      }
    }
    out.push(iface);
  }
  return out;
}

/**
 * The addresses of one interface a rule picks: `@N` is the Nth (from 1), anything else a regular
 * expression, empty means all. IPv6 candidates skip temporary and deprecated addresses and
 * prefer global ones, since those are the ones worth publishing in DNS.
 */
export function pickAddresses(
  iface: NetInterface,
  family: 'IPv4' | 'IPv6',
  rule: string,
): { candidates: string[]; matches: string[] } {
  const candidates =
    family === 'IPv4'
      ? iface.ipv4.map((a) => a.address)
      : iface.ipv6
          .filter((a) => !a.temporary && !a.deprecated && a.scope !== 'link' && a.scope !== 'loopback')
          .sort((a, b) => Number(b.scope === 'global') - Number(a.scope === 'global'))
          .map((a) => a.address);
  const r = rule.trim();
  if (r === '') return { candidates, matches: candidates };
  const nth = /^@(\d+)$/.exec(r);
  if (nth) {
    const pick = candidates[Number(nth[1]) - 1];
    return { candidates, matches: pick ? [pick] : [] };
  }
  const re = new RegExp(r); // the caller reports a SyntaxError as "invalid regex"
  return { candidates, matches: candidates.filter((c) => re.test(c)) };
}
