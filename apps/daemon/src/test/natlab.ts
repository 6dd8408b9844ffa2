/**
 * A NAT lab made of network namespaces: the test's own (root) namespace is the LAN host the daemon
 * runs on, a router namespace NATs it to a WAN namespace, and the router runs a real miniupnpd
 * (UPnP IGD v2 and NAT-PMP) on its LAN side. Nothing leaves the machine: the only change outside
 * the lab's namespaces is the LAN veth and one route, in the root namespace, for the lab's own
 * WAN /28 (never the default route).
 *
 * Address plan (k is chosen per lab, free of other labs' routes):
 *
 *   root ns (LAN host)  10.77.k.2/24  ──veth──  10.77.k.1/24  router ns
 *                                                198.20.k.1/28 (WAN, masquerade, miniupnpd ext_ip)
 *                                                      │ veth
 *   WAN ns  198.20.k.2 and .3 (coturn, RFC 5780 needs two), .4 (other peers) /28
 *   free for renumberWan: 198.20.k.5 – 198.20.k.14 (`wanFree`)
 *
 * Why not a documentation range (203.0.113.0/24) for the WAN: miniupnpd 2.3.1 refuses to start when
 * ext_ip is any reserved or private address (it checks every IANA special range: TEST-NETs,
 * 198.18/15, 100.64/10…), and without ext_ip it refuses mappings on a private WAN; it has no option
 * to allow them. 198.20.0.0/16 is ordinary unicast, so the lab uses a /28 of it and routes that
 * /28 to its router only while the lab exists.
 *
 * miniupnpd's nftables backend only fills chains, it never makes them: the router's ruleset
 * creates `table inet filter` with base chains `forward`, `prerouting` and `postrouting` jumping to
 * `miniupnpd`, `prerouting_miniupnpd` and `postrouting_miniupnpd` (2.3.1's built-in names).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCoturn, type Coturn } from './coturn.js';

export interface NsHandle {
  ns: string;
  /** Runs a command inside the namespace; resolves with its stdout, rejects on a non-zero exit. */
  exec(cmd: string, args: string[], timeoutMs?: number): Promise<string>;
  /** Starts a long-running command inside the namespace (stdout/stderr piped: read or drop them); the caller kills it. */
  spawn(cmd: string, args: string[]): ChildProcess;
}

export interface NatLab {
  /** The root namespace's address on the LAN veth: where the daemon's sockets bind. */
  lanAddr: string;
  /** The router's LAN address: the NAT-PMP gateway, miniupnpd's HTTP host. */
  routerLanAddr: string;
  /** The router's current WAN address (what the WAN side sees as our public address). */
  routerWanAddr(): string;
  /** WAN addresses no one uses yet, for renumberWan. */
  wanFree: string[];
  /** miniupnpd's device description URL. */
  upnpUrl: string;
  /** The WAN namespace; `addrs` are its addresses (coturn takes the first two). */
  wan: NsHandle & { addrs: string[] };
  router: NsHandle;
  /** coturn in the WAN namespace on its first two addresses (RFC 5780); stopped by remove() too. */
  startStun(): Promise<{ server: string; stop(): Promise<void> }>;
  /** Moves the router's WAN address (within the WAN /28) and restarts miniupnpd with it as ext_ip. */
  renumberWan(newAddr: string): Promise<void>;
  /** `upnpc -u <upnpUrl> -l`, from the root namespace. */
  upnpList(): Promise<string>;
  /** The router's nftables ruleset, where miniupnpd's mappings are rules. */
  nftRuleset(): Promise<string>;
  /** Replaces the router's masquerade: '' plain (endpoint-independent mapping), 'random,fully-random' symmetric. */
  setMasquerade(how: string): Promise<void>;
  /** miniupnpd's log so far (for failure messages). */
  miniupnpdLog(): string;
  /** Everything gone: processes, namespaces, veths, the route. Safe to call twice. */
  remove(): Promise<void>;
}

const UPNP_HTTP_PORT = 5000;
const READY_TIMEOUT_MS = 5000;

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 });
}

function stderrOf(err: unknown): string {
  return (err as { stderr?: Buffer }).stderr?.toString().trim() || String(err);
}

/** Runs a command to its end; resolves with stdout, rejects on a non-zero exit or after timeoutMs. */
function run(cmd: string, args: string[], timeoutMs = 10_000): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (c) => (out += c));
    p.stderr.on('data', (c) => (err += c));
    const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    p.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${args.join(' ')}: ${signal ? `killed (${signal}) after ${timeoutMs} ms` : `exited ${code}`}: ${err || out}`));
    });
  });
}

function nsHandle(ns: string): NsHandle {
  return {
    ns,
    exec: (cmd, args, timeoutMs) => run('ip', ['netns', 'exec', ns, cmd, ...args], timeoutMs),
    spawn: (cmd, args) => spawn('ip', ['netns', 'exec', ns, cmd, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }),
  };
}

function exited(p: ChildProcess): Promise<void> {
  return p.exitCode !== null || p.signalCode !== null ? Promise.resolve() : new Promise((r) => p.once('exit', () => r()));
}

async function kill(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return;
  p.kill('SIGTERM');
  const t = setTimeout(() => p.kill('SIGKILL'), 3000);
  await exited(p);
  clearTimeout(t);
}

function routeExists(prefix: string): boolean {
  return execFileSync('ip', ['-4', 'route', 'show', prefix], { encoding: 'utf8' }).trim() !== '';
}

/** A third octet whose LAN /24 and WAN /28 no other lab (or anything else) routes yet. */
function pickK(tag: string): number {
  // The tag spreads labs of one process (worker threads share a pid) over different starts.
  const start = [...tag].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 200, process.pid % 200);
  for (let i = 0; i < 200; i++) {
    const k = 20 + ((start + i) % 200);
    if (!routeExists(`10.77.${k}.0/24`) && !routeExists(`198.20.${k}.0/28`)) return k;
  }
  throw new Error('NAT lab: no free 10.77.k.0/24 and 198.20.k.0/28 pair');
}

function get(url: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

/** Builds the lab; throws a clear error when namespaces cannot be made (not root, no iproute2). */
export async function createNatLab(tag: string): Promise<NatLab> {
  const id = `${tag}${process.pid % 10000}`.slice(0, 9);
  const routerNs = `lk-r-${id}`;
  const wanNs = `lk-w-${id}`;
  // Interface names are at most 15 bytes.
  const lanHostIf = `la${id}`.slice(0, 15);
  const lanRouterIf = `lb${id}`.slice(0, 15);
  const wanRouterIf = `lc${id}`.slice(0, 15);
  const wanPeerIf = `ld${id}`.slice(0, 15);
  const k = pickK(tag);
  const lanAddr = `10.77.${k}.2`;
  const routerLanAddr = `10.77.${k}.1`;
  const wanPrefix = `198.20.${k}.0/28`;
  let wanAddr = `198.20.${k}.1`;
  const wanAddrs = [2, 3, 4].map((n) => `198.20.${k}.${n}`);
  const wanFree = [5, 6, 7, 8, 9, 10, 11, 12, 13, 14].map((n) => `198.20.${k}.${n}`);
  const dir = mkdtempSync(join(tmpdir(), 'lucky-natlab-'));
  const conf = join(dir, 'miniupnpd.conf');
  const log = join(dir, 'miniupnpd.log');
  const upnpUrl = `http://${routerLanAddr}:${UPNP_HTTP_PORT}/rootDesc.xml`;
  const router = nsHandle(routerNs);
  const wan = nsHandle(wanNs);
  const stuns = new Set<Coturn>();
  let miniupnpd: ChildProcess | null = null;
  let routeAdded = false;
  let removed = false;

  const remove = async () => {
    if (removed) return;
    removed = true;
    for (const s of stuns) await s.stop().catch(() => {});
    if (miniupnpd) await kill(miniupnpd);
    const steps: (() => void)[] = [
      () => routeAdded && ip('route', 'del', wanPrefix, 'via', routerLanAddr),
      () => ip('link', 'del', lanHostIf),
      () => ip('netns', 'del', routerNs),
      () => ip('netns', 'del', wanNs),
    ];
    for (const step of steps) {
      try {
        step();
      } catch {
        // not made, or gone with its namespace
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const writeConf = () =>
    writeFileSync(
      conf,
      [
        `ext_ifname=${wanRouterIf}`,
        // The WAN address is not on a public network as far as miniupnpd can tell: declare it.
        `ext_ip=${wanAddr}`,
        `listening_ip=${lanRouterIf}`,
        `http_port=${UPNP_HTTP_PORT}`,
        'enable_upnp=yes',
        'enable_natpmp=yes',
        // Secure mode, as on real routers: a mapping must point at the asker's own address, so a
        // client naming the wrong NewInternalClient fails here as it would at home (718).
        'secure_mode=yes',
        'system_uptime=yes',
        `lease_file=${join(dir, 'leases')}`,
        'uuid=6c7a2f1e-5b3d-4e8a-9f10-2b4c6d8e0a12',
        `allow 1-65535 10.77.${k}.0/24 1-65535`,
        'deny 0-65535 0.0.0.0/0 0-65535',
        '',
      ].join('\n'),
    );

  const startMiniupnpd = async () => {
    writeConf();
    const p = router.spawn('miniupnpd', ['-f', conf, '-d', '-P', join(dir, 'miniupnpd.pid')]);
    miniupnpd = p;
    // -d keeps it in the foreground and logs to stderr.
    const append = (c: Buffer) => writeFileSync(log, c, { flag: 'a' });
    p.stdout?.on('data', append);
    p.stderr?.on('data', append);
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      if (p.exitCode !== null) throw new Error(`miniupnpd exited ${p.exitCode}:\n${readLog()}`);
      try {
        if ((await get(upnpUrl, 500)) === 200) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`miniupnpd: ${upnpUrl} not answering after ${READY_TIMEOUT_MS / 1000} s:\n${readLog()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const readLog = () => {
    try {
      return readFileSync(log, 'utf8');
    } catch {
      return '(no log)';
    }
  };

  try {
    ip('netns', 'add', routerNs);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`NAT lab: cannot create a network namespace (needs root and iproute2): ${stderrOf(err)}`);
  }
  try {
    ip('netns', 'add', wanNs);
    ip('link', 'add', lanHostIf, 'type', 'veth', 'peer', 'name', lanRouterIf, 'netns', routerNs);
    ip('addr', 'add', `${lanAddr}/24`, 'dev', lanHostIf);
    ip('link', 'set', lanHostIf, 'up');
    ip('-n', routerNs, 'addr', 'add', `${routerLanAddr}/24`, 'dev', lanRouterIf);
    ip('-n', routerNs, 'link', 'set', lanRouterIf, 'up');
    ip('-n', routerNs, 'link', 'set', 'lo', 'up');
    ip('link', 'add', wanRouterIf, 'netns', routerNs, 'type', 'veth', 'peer', 'name', wanPeerIf, 'netns', wanNs);
    ip('-n', routerNs, 'addr', 'add', `${wanAddr}/28`, 'dev', wanRouterIf);
    ip('-n', routerNs, 'link', 'set', wanRouterIf, 'up');
    for (const a of wanAddrs) ip('-n', wanNs, 'addr', 'add', `${a}/28`, 'dev', wanPeerIf);
    ip('-n', wanNs, 'link', 'set', wanPeerIf, 'up');
    ip('-n', wanNs, 'link', 'set', 'lo', 'up');
    // The sysctl is per namespace: forwarding here changes nothing in the root namespace.
    // Without promote_secondaries, renumberWan's removal of the old (primary) WAN address would
    // take the new one, a secondary in the same subnet, with it.
    const sysctls = `echo 1 > /proc/sys/net/ipv4/ip_forward && echo 1 > /proc/sys/net/ipv4/conf/${wanRouterIf}/promote_secondaries`;
    execFileSync('ip', ['netns', 'exec', routerNs, 'sh', '-c', sysctls], { stdio: ['ignore', 'ignore', 'pipe'] });
    const ruleset = `
table inet filter {
  chain forward {
    type filter hook forward priority 0; policy accept;
    jump miniupnpd
  }
  chain miniupnpd {
  }
  chain prerouting {
    type nat hook prerouting priority -100; policy accept;
    jump prerouting_miniupnpd
  }
  chain postrouting {
    type nat hook postrouting priority 100; policy accept;
    jump postrouting_miniupnpd
    oifname "${wanRouterIf}" masquerade
  }
  chain prerouting_miniupnpd {
  }
  chain postrouting_miniupnpd {
  }
}
`;
    writeFileSync(join(dir, 'router.nft'), ruleset);
    execFileSync('ip', ['netns', 'exec', routerNs, 'nft', '-f', join(dir, 'router.nft')], { stdio: ['ignore', 'ignore', 'pipe'] });
    ip('route', 'add', wanPrefix, 'via', routerLanAddr);
    routeAdded = true;
    await startMiniupnpd();
  } catch (err) {
    await remove();
    throw new Error(`NAT lab: setup failed: ${stderrOf(err)}`);
  }

  return {
    lanAddr,
    routerLanAddr,
    routerWanAddr: () => wanAddr,
    wanFree,
    upnpUrl,
    wan: { ...wan, addrs: wanAddrs },
    router,
    async startStun() {
      const c = await startCoturn({ listen: wanAddrs.slice(0, 2), netns: wanNs });
      stuns.add(c);
      return {
        server: `${wanAddrs[0]}:${c.port}`,
        stop: async () => {
          stuns.delete(c);
          await c.stop();
        },
      };
    },
    async renumberWan(newAddr) {
      if (!wanFree.includes(newAddr) && !wanAddrs.includes(newAddr) && newAddr !== wanAddr) {
        throw new Error(`renumberWan: ${newAddr} is not in the lab's WAN ${wanPrefix} (use lab.wanFree)`);
      }
      if (newAddr === wanAddr) return;
      // Adding before deleting keeps the WAN link routed throughout. Deleting the old address makes
      // the kernel drop the conntrack entries masqueraded to it, so new packets take the new one.
      ip('-n', routerNs, 'addr', 'add', `${newAddr}/28`, 'dev', wanRouterIf);
      ip('-n', routerNs, 'addr', 'del', `${wanAddr}/28`, 'dev', wanRouterIf);
      const i = wanFree.indexOf(newAddr);
      if (i >= 0) wanFree.splice(i, 1, wanAddr);
      wanAddr = newAddr;
      // ext_ip is read at start only; the lease file carries the mappings over the restart.
      if (miniupnpd) await kill(miniupnpd);
      await startMiniupnpd();
    },
    upnpList: () => run('upnpc', ['-u', upnpUrl, '-l']),
    nftRuleset: () => router.exec('nft', ['list', 'ruleset']),
    async setMasquerade(how) {
      const rules = await router.exec('nft', ['-a', 'list', 'chain', 'inet', 'filter', 'postrouting']);
      const handle = /masquerade.*# handle (\d+)/.exec(rules)?.[1];
      const out = /oifname "([^"]+)"/.exec(rules)?.[1];
      if (!handle || !out) throw new Error(`no masquerade rule:\n${rules}`);
      await router.exec('nft', ['replace', 'rule', 'inet', 'filter', 'postrouting', 'handle', handle, 'oifname', out, 'masquerade', ...(how ? how.split(' ') : [])]);
    },
    miniupnpdLog: readLog,
    remove,
  };
}
