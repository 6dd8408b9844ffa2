/**
 * Names of the devices found: PTR through the system's resolver (getnameinfo: the hosts file, then
 * the DNS servers the system uses, as nsswitch.conf says), and a multicast DNS reverse query on the
 * scanned link only. Both bounded in time: whatever has not answered by then stays without a name.
 */
import { createSocket } from 'node:dgram';
import { lookupService } from 'node:dns/promises';
import { buildQuery, parseMessage, readName, TYPE } from '../../lib/dns/wire.js';
import { reverseName } from './wol.subnet.js';

const MDNS_GROUP = '224.0.0.251';
const MDNS_PORT = 5353;

const within = <T>(p: Promise<T>, ms: number, fallback: T) =>
  Promise.race([p.catch(() => fallback), new Promise<T>((r) => setTimeout(() => r(fallback), ms).unref())]);

/**
 * getnameinfo runs on libuv's thread pool (4 threads, shared with file access), and a lookup that
 * waits for a silent DNS server holds its thread for the resolver's timeout: two at a time leave
 * the rest of the daemon its files; `deadlineMs` ends the wait for all of them.
 */
export async function reverseNames(addresses: string[], deadlineMs: number, parallel = 2): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const end = Date.now() + deadlineMs;
  let next = 0;
  const worker = async () => {
    while (next < addresses.length && Date.now() < end) {
      const ip = addresses[next++]!;
      const r = await within(lookupService(ip, 9), end - Date.now(), null);
      // Without a name, getnameinfo answers the address itself.
      if (r && r.hostname !== ip) out.set(ip, r.hostname);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, addresses.length) }, worker));
  return out;
}

/**
 * One reverse PTR question per address to 224.0.0.251:5353 from an ephemeral port, out of the
 * interface whose address is `from` (a link-local group: never routed past the link). From a port
 * other than 5353 it is a "legacy unicast" query (RFC 6762 section 6.7): responders answer to this
 * socket, so nothing listens on 5353 here.
 */
export async function mdnsNames(from: string, addresses: string[], waitMs: number): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (addresses.length === 0) return out;
  const wanted = new Map(addresses.map((ip) => [reverseName(ip), ip]));
  const sock = createSocket('udp4');
  sock.on('error', () => undefined);
  sock.on('message', (buf) => {
    try {
      const m = parseMessage(buf);
      for (const rr of [...m.answers, ...m.additional]) {
        const ip = wanted.get(rr.name.toLowerCase());
        if (rr.type !== TYPE.PTR || !ip || out.has(ip)) continue;
        const at = rr.data.byteOffset - buf.byteOffset;
        const name = readName(buf, at).name;
        if (name !== '') out.set(ip, name);
      }
    } catch {
      // Not an answer we can read: other traffic on the port, or a malformed one.
    }
  });
  try {
    await new Promise<void>((resolve, reject) => {
      sock.once('error', reject);
      sock.bind(0, from, () => {
        sock.off('error', reject);
        resolve();
      });
    });
    sock.setMulticastInterface(from);
    // RFC 6762 section 11: multicast DNS goes with IP TTL 255 (receivers check it came from the link).
    sock.setMulticastTTL(255);
    sock.setMulticastLoopback(false);
    for (const [name] of wanted) sock.send(buildQuery(name, TYPE.PTR, 0, false), MDNS_PORT, MDNS_GROUP);
    const end = Date.now() + waitMs;
    while (Date.now() < end && out.size < wanted.size) await new Promise((r) => setTimeout(r, 50));
  } catch {
    // No multicast on this link: no names from it.
  } finally {
    sock.close();
  }
  return out;
}
