/**
 * A real BIND 9 for the RFC 2136 tests: `named -g` on 127.0.0.1 and a free port, with a TSIG key
 * and a test zone in a temp dir. Throws (never skips) with named's own output when it cannot start.
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
  port: number;
  zone: string;
  keyName: string;
  secret: string;
  dir: string;
  output(): string;
  stop(): Promise<void>;
}

/** A port free for both TCP and UDP on 127.0.0.1. */
async function freeDnsPort(): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const port = await new Promise<number>((resolve, reject) => {
      const s = createServer();
      s.once('error', reject);
      s.listen(0, '127.0.0.1', () => {
        const a = s.address();
        s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
      });
    });
    const udpFree = await new Promise<boolean>((resolve) => {
      const u = createSocket('udp4');
      u.once('error', () => resolve(false));
      u.bind(port, '127.0.0.1', () => u.close(() => resolve(true)));
    });
    if (udpFree) return port;
  }
  throw new Error('no free port for named');
}

export async function startBind(zone = 'example.test'): Promise<Bind> {
  if (!existsSync(NAMED)) {
    throw new Error(`${NAMED} is missing: install Debian's bind9 (npm test installs it; or apt-get install -y bind9 bind9-dnsutils)`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'lucky-bind-'));
  const port = await freeDnsPort();
  const keyName = 'lucky-ddns-key';
  const secret = randomBytes(32).toString('base64');
  writeFileSync(
    join(dir, 'named.conf'),
    `options {
  directory "${dir}";
  pid-file "${dir}/named.pid";
  session-keyfile "${dir}/session.key";
  managed-keys-directory "${dir}";
  listen-on port ${port} { 127.0.0.1; };
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
ns IN A 127.0.0.1
`,
  );
  let out = '';
  const child: ChildProcess = spawn(NAMED, ['-g', '-4', '-c', join(dir, 'named.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
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
      const a = parseMessage(await exchange({ host: '127.0.0.1', port }, buildQuery(zone, TYPE.SOA, undefined, false), 600));
      if (a.rcode === 0 && a.answers.length) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`named did not answer on 127.0.0.1:${port} within 20 s:\n${out.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { port, zone, keyName, secret, dir, output: () => out, stop };
}
