/**
 * A real BIND 9 for the RFC 2136 tests: `named -g` on 127.0.0.1 and a free port, with a TSIG key
 * and a test zone in a temp dir. Throws (never skips) with named's own output when it cannot start.
 * With `netns` it runs inside that network namespace (a NAT lab's WAN, src/test/publishlab.ts) on
 * `host`, port 53 unless told: the namespace is the test's own, so the standard port is free there.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createSocket } from 'node:dgram';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildQuery, exchange, parseMessage, TYPE } from '../wire.js';

export const NAMED = '/usr/sbin/named';

export interface Bind {
  /** The address named listens on (127.0.0.1 unless `host` was given). */
  host: string;
  port: number;
  zone: string;
  keyName: string;
  secret: string;
  dir: string;
  output(): string;
  stop(): Promise<void>;
}

export interface BindOptions {
  /** A network namespace to run named in (through `ip netns exec`). */
  netns?: string;
  /** The IPv4 address to listen on; it must be reachable from the test's namespace (the readiness check asks from there). */
  host?: string;
  /** Default: 53 inside `netns`, a free port otherwise. */
  port?: number;
}

/** A port free for both TCP and UDP on host. */
async function freeDnsPort(host: string): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const port = await new Promise<number>((resolve, reject) => {
      const s = createServer();
      s.once('error', reject);
      s.listen(0, host, () => {
        const a = s.address();
        s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
      });
    });
    const udpFree = await new Promise<boolean>((resolve) => {
      const u = createSocket('udp4');
      u.once('error', () => resolve(false));
      u.bind(port, host, () => u.close(() => resolve(true)));
    });
    if (udpFree) return port;
  }
  throw new Error('no free port for named');
}

export async function startBind(zone = 'example.test', o: BindOptions = {}): Promise<Bind> {
  if (!existsSync(NAMED)) {
    throw new Error(`${NAMED} is missing: install Debian's bind9 (npm test installs it; or apt-get install -y bind9 bind9-dnsutils)`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'lucky-bind-'));
  const host = o.host ?? '127.0.0.1';
  const port = o.port ?? (o.netns ? 53 : await freeDnsPort(host));
  const keyName = 'lucky-ddns-key';
  const secret = randomBytes(32).toString('base64');
  writeFileSync(
    join(dir, 'named.conf'),
    `options {
  directory "${dir}";
  pid-file "${dir}/named.pid";
  session-keyfile "${dir}/session.key";
  managed-keys-directory "${dir}";
  listen-on port ${port} { ${host}; };
  listen-on-v6 { none; };
  recursion no;
  dnssec-validation no;
  allow-query { any; };
  notify no;
};
controls { };
key "${keyName}" { algorithm hmac-sha256; secret "${secret}"; };
zone "${zone}" {
  type primary;
  file "${dir}/${zone}.zone";
  allow-update { key "${keyName}"; };
};
`,
  );
  writeFileSync(
    join(dir, `${zone}.zone`),
    `$TTL 300
@ IN SOA ns.${zone}. admin.${zone}. 1 3600 600 86400 300
@ IN NS ns.${zone}.
ns IN A ${host}
`,
  );
  let out = '';
  const args = ['-g', '-4', '-c', join(dir, 'named.conf')];
  // `ip netns exec` execs named in place: the child's pid is named's, so stop() signals named itself.
  const [cmd, argv]: [string, string[]] = o.netns ? ['ip', ['netns', 'exec', o.netns, NAMED, ...args]] : [NAMED, args];
  const child: ChildProcess = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-20_000)));
  child.stderr!.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-20_000)));
  let exited: number | null | undefined;
  child.on('exit', (code) => (exited = code));
  const stop = async () => {
    if (exited === undefined) {
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(t);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // Ready when it answers the zone's SOA (bounded).
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (exited !== undefined) {
      await stop();
      throw new Error(`named exited with code ${exited} before it was ready:\n${out.slice(-4000)}`);
    }
    try {
      const a = parseMessage(await exchange({ host, port }, buildQuery(zone, TYPE.SOA, undefined, false), 600));
      if (a.rcode === 0 && a.answers.length) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`named did not answer on ${host}:${port}${o.netns ? ` in ${o.netns}` : ''} within 20 s:\n${out.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { host, port, zone, keyName, secret, dir, output: () => out, stop };
}
