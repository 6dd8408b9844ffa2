/**
 * The lab for publishing a LAN service to the internet end to end: the NAT lab (natlab.ts: the
 * test's namespace is the LAN host, a router namespace with masquerade and miniupnpd, a WAN
 * namespace) with the internet's parts in its WAN namespace:
 *
 *   - BIND 9 on `wan.addrs[2]`, port 53: the zone `lab.test` with a TSIG key, where a DDNS task
 *     sets its records (RFC 2136) and every WAN-side lookup is answered;
 *   - pebble on the same address (directory on 14000): an ACME CA that resolves names at that BIND
 *     and validates HTTP-01 on port 80 of the address found, so through the router's port mapping;
 *   - `wanClient`: dig and curl from the WAN namespace, the visitor from outside.
 *
 * The test's namespace reaches BIND and pebble through the router (the lab routes its WAN /28
 * there), as a daemon at home reaches a DNS provider and an ACME CA; they see the router's WAN
 * address as its source. coturn (lab.startStun) takes `wan.addrs[0]` and `[1]`, so all three fit.
 */
import { startBind, type Bind } from '../lib/dns/testing/bind.js';
import { createNatLab, type NatLab } from './natlab.js';
import { startPebble, type Pebble } from './pebble.js';
import { wanClient, type WanClient } from './wanclient.js';

export const LAB_ZONE = 'lab.test';

export interface PublishLab extends NatLab {
  /** BIND in the WAN namespace: `bind.host`:53, zone `bind.zone` (lab.test), TSIG `bind.keyName`/`bind.secret` (hmac-sha256). */
  bind: Bind;
  /** pebble in the WAN namespace on `bind.host`, asking that BIND, validating HTTP-01 on port 80; trust `pebble.tlsCa`. */
  pebble: Pebble;
  /** dig and curl from the WAN namespace, names looked up at the lab's BIND. */
  wanClient: WanClient;
  /** Stops pebble and BIND, then removes the NAT lab. Safe to call twice. */
  remove(): Promise<void>;
}

/** Builds the lab; throws (never skips) when namespaces cannot be made or a peer does not start. */
export async function createPublishLab(tag: string): Promise<PublishLab> {
  const lab = await createNatLab(tag);
  const host = lab.wan.addrs[2]!;
  let bind: Bind | undefined;
  let pebble: Pebble | undefined;
  let client: WanClient | undefined;
  let removed = false;
  const remove = async () => {
    if (removed) return;
    removed = true;
    await pebble?.stop().catch(() => {});
    await bind?.stop().catch(() => {});
    client?.close();
    await lab.remove();
  };
  try {
    bind = await startBind(LAB_ZONE, { netns: lab.wan.ns, host });
    pebble = await startPebble({ netns: lab.wan.ns, host, httpPort: 80, dnsServer: `${host}:${bind.port}` });
    client = wanClient(lab.wan, { host, port: bind.port });
  } catch (err) {
    await remove();
    throw err;
  }
  return { ...lab, bind, pebble, wanClient: client, remove };
}

/**
 * The bodies a daemon in the lab is set up with before a service is published: automatic
 * certificates from the lab's pebble (`PUT /api/acme/configure`), every link looked at every 5 s
 * (`PUT /api/publish/configure`), and the user's own DDNS task for the zone (`POST /api/ddns/rules`:
 * RFC 2136 at the lab's BIND; its own address source says nothing true, so what the records hold is
 * the router's word, sent by the published service).
 */
export function labSetup(lab: PublishLab, templateName = 'lab zone') {
  return {
    acme: { auto: { ca: 'custom', directoryUrl: lab.pebble.directory, caRoot: lab.pebble.tlsCa } },
    publish: { checkInterval: 5 },
    template: {
      name: templateName,
      provider: 'rfc2136',
      recordType: 'A',
      credentials: { id: lab.bind.keyName, secret: lab.bind.secret, server: `${lab.bind.host}:${lab.bind.port}` },
      domains: [`home.${LAB_ZONE}`],
      ipv4: { type: 'command', command: 'echo 192.0.2.1' },
      ttl: 60,
    },
  };
}
