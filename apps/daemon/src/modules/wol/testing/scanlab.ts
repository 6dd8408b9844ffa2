/**
 * A LAN made of network namespaces for the device finder's tests. The scanner's namespace holds
 * the LAN bridge `br0` (as a home router holds br-lan) with the subnet's first address, and an
 * interface `d16` with a /16 (the scan must refuse it). Each host is a namespace of its own
 * whose `eth0` (a MAC the test chose) is a veth port of the bridge. Nothing is made in the test's
 * own namespace, so nothing on the machine's own interfaces is ever scanned or reachable.
 *
 * Names: `ip netns exec` bind-mounts /etc/netns/<ns>/{hosts,resolv.conf} over /etc for what it
 * runs; the lab writes both for the scanner (a PTR answer from the hosts file; DNS at 127.0.0.1,
 * where nothing listens, so no query leaves the namespace) and removes them with the lab.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';

export interface LabHost {
  ns: string;
  address: string;
  mac: string;
}

export interface NsRunner {
  ns: string;
  /** Runs to its end; stdout, or a rejection naming the exit code and stderr. */
  exec(cmd: string, args: string[], timeoutMs?: number): Promise<string>;
  /** A long-running child inside the namespace; the caller (or remove()) kills it. */
  spawn(cmd: string, args: string[], env?: Record<string, string>): ChildProcess;
}

export interface ScanLab {
  scanner: NsRunner;
  /** The scanner's address on br0, and br0's subnet. */
  scannerAddress: string;
  subnet: string;
  /** On the bridge inside the subnet. */
  hosts: LabHost[];
  /** On the same bridge with an address outside the subnet: never probed, never listed. */
  stranger: LabHost;
  host(ns: string): NsRunner;
  remove(): void;
}

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 });
}

function runner(ns: string, children: ChildProcess[]): NsRunner {
  return {
    ns,
    exec: (cmd, args, timeoutMs = 10_000) =>
      new Promise<string>((resolve, reject) => {
        const p = spawn('ip', ['netns', 'exec', ns, cmd, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        p.stdout.on('data', (c) => (out += c));
        p.stderr.on('data', (c) => (err += c));
        const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
        p.on('error', reject);
        p.on('exit', (code, signal) => {
          clearTimeout(timer);
          if (code === 0) resolve(out);
          else reject(new Error(`${cmd} in ${ns}: ${signal ?? `exit ${code}`}: ${err || out}`));
        });
      }),
    spawn: (cmd, args, env) => {
      // `ip netns exec` execs the command: the child's pid is the command's own.
      const p = spawn('ip', ['netns', 'exec', ns, cmd, ...args], { stdio: ['ignore', 'pipe', 'pipe'], ...(env ? { env } : {}) });
      children.push(p);
      return p;
    },
  };
}

/** IPv6 off: its router solicitations and DAD would be traffic the test did not ask for. */
function quietNs(ns: string): void {
  execFileSync('ip', ['netns', 'exec', ns, 'sysctl', '-qw', 'net.ipv6.conf.all.disable_ipv6=1', 'net.ipv6.conf.default.disable_ipv6=1'], { stdio: 'ignore' });
  ip('-n', ns, 'link', 'set', 'lo', 'up');
}

/**
 * `k` (1–250) picks the lab's subnet, 10.96.k.0/`prefix` (a multiple of 4 for a /22; the stranger
 * in 10.97.k.0/24). Hosts get `addresses` (by default .11, .12, .200… of the first /24), one per MAC.
 * `names` go into the scanner's hosts file. Throws a clear message where namespaces cannot be made.
 */
export function createScanLab(tag: string, k: number, macs: string[], names: Record<string, string>, opts: { prefix?: number; addresses?: string[] } = {}): ScanLab {
  const prefix = opts.prefix ?? 24;
  const id = `${tag}${process.pid % 10000}`.slice(0, 8);
  const scannerNs = `lk-sc-${id}`;
  const net = `10.96.${k}`;
  const scannerAddress = `${net}.1`;
  const children: ChildProcess[] = [];
  const made: string[] = [];
  const etc = `/etc/netns/${scannerNs}`;
  const remove = () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    for (const ns of made.reverse()) {
      try {
        ip('netns', 'del', ns);
      } catch {
        // already gone
      }
    }
    rmSync(etc, { recursive: true, force: true });
    try {
      // /etc/netns itself only when no other namespace keeps files there.
      rmdirSync('/etc/netns');
    } catch {
      // not empty, or not there
    }
  };
  try {
    ip('netns', 'add', scannerNs);
  } catch (err) {
    throw new Error(`cannot create a network namespace (needs root and iproute2): ${(err as { stderr?: Buffer }).stderr?.toString() ?? err}`);
  }
  made.push(scannerNs);
  try {
    quietNs(scannerNs);
    ip('-n', scannerNs, 'link', 'add', 'br0', 'type', 'bridge', 'stp_state', '0');
    ip('-n', scannerNs, 'addr', 'add', `${scannerAddress}/${prefix}`, 'dev', 'br0');
    ip('-n', scannerNs, 'link', 'set', 'br0', 'up');
    // A veth pair rather than a dummy: containers' kernels often lack the dummy driver.
    ip('-n', scannerNs, 'link', 'add', 'd16', 'type', 'veth', 'peer', 'name', 'd16peer');
    ip('-n', scannerNs, 'addr', 'add', `10.200.${k}.1/16`, 'dev', 'd16');
    ip('-n', scannerNs, 'link', 'set', 'd16peer', 'up');
    ip('-n', scannerNs, 'link', 'set', 'd16', 'up');
    const addHost = (i: number, address: string, mac: string, bits = prefix): LabHost => {
      const ns = `lk-h${i}-${id}`;
      ip('netns', 'add', ns);
      made.push(ns);
      quietNs(ns);
      ip('-n', scannerNs, 'link', 'add', `p${i}`, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns);
      ip('-n', ns, 'link', 'set', 'eth0', 'address', mac);
      ip('-n', ns, 'addr', 'add', `${address}/${bits}`, 'dev', 'eth0');
      ip('-n', ns, 'link', 'set', 'eth0', 'up');
      ip('-n', scannerNs, 'link', 'set', `p${i}`, 'master', 'br0');
      ip('-n', scannerNs, 'link', 'set', `p${i}`, 'up');
      return { ns, address, mac };
    };
    const hosts = macs.map((mac, i) => addHost(i + 1, opts.addresses?.[i] ?? `${net}.${[11, 12, 200, 201, 202][i]}`, mac));
    const stranger = addHost(9, `10.97.${k}.7`, '02:5c:a0:00:00:99', 24);
    mkdirSync(etc, { recursive: true });
    const lines = Object.entries(names).map(([addr, name]) => `${addr} ${name}`);
    writeFileSync(`${etc}/hosts`, ['127.0.0.1 localhost', ...lines, ''].join('\n'));
    writeFileSync(`${etc}/resolv.conf`, 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n');
    return { scanner: runner(scannerNs, children), scannerAddress, subnet: `${net}.0/${prefix}`, hosts, stranger, host: (ns) => runner(ns, children), remove };
  } catch (err) {
    remove();
    throw err;
  }
}

/**
 * A tiny multicast DNS responder for a test host: answers the reverse PTR question for `address`
 * with `name`, as a legacy unicast answer (RFC 6762 section 6.7: to the asker's port, with its id
 * and question, TTL at most 10 s, no cache-flush bit). Prints `ready` once joined, then `asked`
 * per question it answered.
 */
export const MDNS_RESPONDER = `
const dgram = require('node:dgram');
const [address, name] = process.argv.slice(1);
const rev = address.split('.').reverse().join('.') + '.in-addr.arpa';
const enc = (n) => Buffer.concat([...n.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)])), Buffer.from([0])]);
const s = dgram.createSocket({ type: 'udp4', reuseAddr: true });
s.on('message', (m, r) => {
  let pos = 12; const labels = [];
  while (m[pos] !== 0 && pos < m.length) { labels.push(m.toString('ascii', pos + 1, pos + 1 + m[pos])); pos += 1 + m[pos]; }
  const qEnd = pos + 5;
  const type = m.readUInt16BE(pos + 1);
  if ((m.readUInt16BE(2) & 0x8000) !== 0 || type !== 12 || labels.join('.').toLowerCase() !== rev) return;
  const head = Buffer.alloc(12); m.copy(head, 0, 0, 2); head.writeUInt16BE(0x8400, 2); head.writeUInt16BE(1, 4); head.writeUInt16BE(1, 6);
  const rdata = enc(name);
  const rr = Buffer.alloc(12); rr.writeUInt16BE(0xc00c, 0); rr.writeUInt16BE(12, 2); rr.writeUInt16BE(1, 4); rr.writeUInt32BE(10, 6); rr.writeUInt16BE(rdata.length, 10);
  s.send(Buffer.concat([head, m.subarray(12, qEnd), rr, rdata]), r.port, r.address);
  process.stdout.write('asked ' + r.address + '\\n');
});
s.bind(5353, '0.0.0.0', () => { s.addMembership('224.0.0.251', address); process.stdout.write('ready\\n'); });
`;
