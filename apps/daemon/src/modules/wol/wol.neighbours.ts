/**
 * The kernel's IPv4 neighbour table, from /proc/net/arp (this network namespace's): read as a
 * file, no process started and no privilege needed.
 */
import { readFile } from 'node:fs/promises';

export interface Neighbour {
  address: string;
  mac: string;
  device: string;
}

/** ATF_COM: the entry has a link-layer address (resolved now, or stale from earlier). */
const COMPLETE = 0x2;

export function parseArpTable(text: string): Neighbour[] {
  const out: Neighbour[] = [];
  for (const line of text.split('\n').slice(1)) {
    const [address, , flags, mac, , device] = line.trim().split(/\s+/);
    if (!address || !mac || !device || !flags) continue;
    if ((Number.parseInt(flags, 16) & COMPLETE) === 0 || mac === '00:00:00:00:00:00') continue;
    out.push({ address, mac: mac.toLowerCase(), device });
  }
  return out;
}

export async function readNeighbours(file = '/proc/net/arp'): Promise<Neighbour[]> {
  return parseArpTable(await readFile(file, 'utf8'));
}
