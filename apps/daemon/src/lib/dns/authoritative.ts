/**
 * The authoritative name servers of the zone that holds a name, found with a resolver (the system's,
 * or the one a test gives): the NS records of the name, else of its parent, and up until a name has
 * some; then each server's addresses. ACME's DNS-01 check asks them directly whether a TXT record is there.
 */
import { Resolver } from 'node:dns/promises';
import { MsgError } from '../msgerror.js';

/** One server to ask: its NS name (or the address as given) and where it answers. */
export interface NameServer {
  name: string;
  addresses: Array<{ host: string; port: number }>;
}

export interface AuthorityOptions {
  /** Resolvers to ask (`host:port`) instead of the system's: tests only. */
  resolvers?: string[];
  /** The port the name servers answer on: 53, another only for tests. */
  port?: number;
  /** Per lookup (default 3 s, tried twice). */
  timeoutMs?: number;
}

export interface Authority {
  zone: string;
  /** The NS hosts that have an address, by name. */
  servers: NameServer[];
}

/** Answers that say "no such data here", so the walk goes on to the parent. */
const NOT_HERE = new Set(['ENODATA', 'ENOTFOUND']);

/** The zone of `name` and its servers; throws a MsgError when the resolver fails or no server has an address. */
export async function findAuthority(name: string, o: AuthorityOptions = {}): Promise<Authority> {
  const resolver = new Resolver({ timeout: o.timeoutMs ?? 3000, tries: 2 });
  if (o.resolvers?.length) resolver.setServers(o.resolvers);
  const port = o.port ?? 53;
  const labels = name.replace(/\.$/, '').toLowerCase().split('.');
  // Up to the top-level domain, not the root.
  for (let i = 0; i < labels.length; i++) {
    const zone = labels.slice(i).join('.');
    let hosts: string[];
    try {
      hosts = await resolver.resolveNs(zone);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? String(err);
      if (NOT_HERE.has(code)) continue;
      throw new MsgError({ key: 'dnsLookupFailed', vars: { type: 'NS', name: zone, code } });
    }
    if (hosts.length === 0) continue;
    const servers = await Promise.all(
      [...new Set(hosts.map((h) => h.toLowerCase()))].sort().map(async (host) => ({ name: host, addresses: (await addressesOf(resolver, host)).map((a) => ({ host: a, port })) })),
    );
    const reachable = servers.filter((s) => s.addresses.length > 0);
    if (reachable.length === 0) throw new MsgError({ key: 'dnsNsNoAddress', vars: { zone, servers: servers.map((s) => s.name).join(', ') } });
    return { zone, servers: reachable };
  }
  throw new MsgError({ key: 'dnsNoNameServers', vars: { name } });
}

/** IPv4 and IPv6 addresses of a host; a family it has none of gives none. */
async function addressesOf(resolver: Resolver, host: string): Promise<string[]> {
  const [v4, v6] = await Promise.all([resolver.resolve4(host).catch(() => []), resolver.resolve6(host).catch(() => [])]);
  return [...v4, ...v6];
}
