/**
 * A test host in its own network namespace, joined to this one by a veth pair, for requests that
 * must come from addresses other than loopback. Addresses are the test's own (documentation and
 * private ranges on a link only the test has); nothing leaves the machine.
 */
import { execFileSync, spawn } from 'node:child_process';

export interface TestHost {
  name: string;
  /** Runs a command inside the namespace; resolves with its stdout. */
  exec(cmd: string, args: string[], timeoutMs?: number): Promise<string>;
  /** GET from inside the namespace, bound to a source address; resolves with the body. */
  get(url: string, from: string, headers?: Record<string, string>): Promise<string>;
  remove(): void;
}

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** The two ends of a test link: `host` here, `inside` in the namespace, on a subnet of `bits`. */
export interface TestLink {
  host: string;
  inside: string;
  bits: number;
  broadcast: string;
}

const routed = (prefix: string) => execFileSync('ip', ['-4', 'route', 'show', prefix], { encoding: 'utf8' }).trim() !== '';

/**
 * A subnet of `base` that nothing routes here yet: a /24 for `a.b` (a.b.k.0/24), a /30 for `a.b.c`
 * (a.b.c.4k/30, a documentation /24 holding 64 links). The addresses of a test host are in the root
 * namespace, so two runs of one file at once (npm test runs the suite on two Nodes side by side)
 * must not take the same subnet; each starts its search at a place of its own pid.
 */
export function freeLink(base: string): TestLink {
  const wide = base.split('.').length === 2;
  const count = wide ? 256 : 64;
  for (let i = 0; i < count; i++) {
    const k = (process.pid + i) % count;
    const link = wide
      ? { net: `${base}.${k}.0/24`, host: `${base}.${k}.1`, inside: `${base}.${k}.2`, bits: 24, broadcast: `${base}.${k}.255` }
      : { net: `${base}.${4 * k}/30`, host: `${base}.${4 * k + 1}`, inside: `${base}.${4 * k + 2}`, bits: 30, broadcast: `${base}.${4 * k + 3}` };
    if (!routed(link.net)) return { host: link.host, inside: link.inside, bits: link.bits, broadcast: link.broadcast };
  }
  throw new Error(`no free test subnet in ${base}`);
}

/**
 * hostAddrs / nsAddrs: `address/prefix` pairs for the two ends (same order, same subnets).
 * Throws with a clear message when namespaces cannot be made here.
 */
export function createTestHost(tag: string, hostAddrs: string[], nsAddrs: string[]): TestHost {
  const id = `${tag}${process.pid % 10000}`.slice(0, 10);
  const name = `lk-${id}`;
  const hostIf = `lh${id}`.slice(0, 15);
  const nsIf = `ln${id}`.slice(0, 15);
  try {
    ip('netns', 'add', name);
  } catch (err) {
    throw new Error(`cannot create a network namespace (needs root and iproute2): ${(err as { stderr?: Buffer }).stderr?.toString() ?? err}`);
  }
  try {
    ip('link', 'add', hostIf, 'type', 'veth', 'peer', 'name', nsIf);
    ip('link', 'set', nsIf, 'netns', name);
    for (const a of hostAddrs) ip('addr', 'add', a, 'dev', hostIf);
    for (const a of nsAddrs) ip('-n', name, 'addr', 'add', a, 'dev', nsIf);
    ip('link', 'set', hostIf, 'up');
    ip('-n', name, 'link', 'set', nsIf, 'up');
    ip('-n', name, 'link', 'set', 'lo', 'up');
  } catch (err) {
    try {
      ip('link', 'del', hostIf);
    } catch {
      // not created
    }
    ip('netns', 'del', name);
    throw err;
  }

  const exec = (cmd: string, args: string[], timeoutMs = 10_000) =>
    new Promise<string>((resolve, reject) => {
      const p = spawn('ip', ['netns', 'exec', name, cmd, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      p.stdout.on('data', (c) => (out += c));
      p.stderr.on('data', (c) => (err += c));
      const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
      p.on('exit', (code) => {
        clearTimeout(timer);
        if (code === 0) resolve(out);
        else reject(new Error(`${cmd} in ${name} exited ${code}: ${err || out}`));
      });
    });

  return {
    name,
    exec,
    get(url, from, headers = {}) {
      const script = `
        const http = require('node:http');
        const req = http.get(process.argv[1], { localAddress: process.argv[2], headers: JSON.parse(process.argv[3]), timeout: 5000 }, (res) => {
          let b = ''; res.on('data', (c) => (b += c)); res.on('end', () => { process.stdout.write(res.statusCode + ' ' + b); });
        });
        req.on('timeout', () => req.destroy(new Error('timeout')));
        req.on('error', (e) => { process.stderr.write(String(e)); process.exit(1); });`;
      return exec(process.execPath, ['-e', script, url, from, JSON.stringify(headers)]);
    },
    remove() {
      try {
        ip('link', 'del', hostIf);
      } catch {
        // gone with the namespace
      }
      try {
        ip('netns', 'del', name);
      } catch {
        // already removed
      }
    },
  };
}
