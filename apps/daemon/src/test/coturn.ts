/**
 * A real STUN server for tests: coturn's `turnserver` in STUN-only mode, nothing else switched on
 * (no TURN, no auth, no CLI, no TLS/DTLS, its own SQLite file and log in a temp dir, never
 * /etc/turnserver.conf).
 *
 * With two listening addresses coturn (4.6) turns RFC 5780 on by itself: every address listens on
 * `port` and `altPort`, Binding answers carry OTHER-ADDRESS (the other address, altPort) and
 * RESPONSE-ORIGIN, and CHANGE-REQUEST is honoured. With one address it is a plain RFC 5389 server.
 *
 * The Debian package enables a systemd `coturn` unit on 3478/3479 on hosts with systemd: the port
 * here is never the default, so a system server is never what a test talks to.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Coturn {
  port: number;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 10_000;

/** Answers a Binding request at each addr:port (retransmitting), or exits 1 after the deadline. */
const PROBE = `
const dgram = require('node:dgram');
const targets = JSON.parse(process.argv[1]);
const deadline = Date.now() + Number(process.argv[2]);
let left = targets.length;
for (const [host, port] of targets) {
  const s = dgram.createSocket('udp4');
  const req = Buffer.alloc(20);
  req.writeUInt16BE(1, 0); req.writeUInt32BE(0x2112a442, 4);
  for (let i = 8; i < 20; i++) req[i] = Math.floor(Math.random() * 256);
  s.on('message', (m) => {
    if (m.length >= 20 && m.readUInt16BE(0) === 0x0101 && m.subarray(8, 20).equals(req.subarray(8, 20))) {
      s.close(); clearInterval(t); if (--left === 0) process.exit(0);
    }
  });
  s.on('error', () => {});
  const send = () => { if (Date.now() > deadline) process.exit(1); s.send(req, port, host); };
  const t = setInterval(send, 100); send();
}`;

function freeOn(host: string, port: number): Promise<boolean> {
  const udp = new Promise<boolean>((resolve) => {
    const s = dgram.createSocket('udp4');
    s.once('error', () => resolve(false));
    s.bind(port, host, () => s.close(() => resolve(true)));
  });
  const tcp = new Promise<boolean>((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, host, () => s.close(() => resolve(true)));
  });
  return Promise.all([udp, tcp]).then(([a, b]) => a && b);
}

/** A port and port+1 free on every address (checked only in our own namespace; a fresh one is empty). */
async function pickPorts(listen: string[], netns: string | undefined): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = 20_000 + 2 * Math.floor(Math.random() * 20_000);
    if (netns) return port;
    let ok = true;
    for (const h of listen) ok = ok && (await freeOn(h, port)) && (await freeOn(h, port + 1));
    if (ok) return port;
  }
  throw new Error('coturn: no free port pair found');
}

function exited(p: ChildProcess): Promise<void> {
  return p.exitCode !== null || p.signalCode !== null ? Promise.resolve() : new Promise((r) => p.once('exit', () => r()));
}

function logTail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-25).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * Starts coturn on the given IPv4 addresses (inside `netns` when given) and resolves once every
 * address answers a Binding request on `port` (and on `altPort` when there are two addresses).
 */
export async function startCoturn(o: { listen: string[]; port?: number; altPort?: number; netns?: string }): Promise<Coturn> {
  if (o.listen.length === 0) throw new Error('coturn: no listening address');
  const port = o.port ?? (await pickPorts(o.listen, o.netns));
  const altPort = o.altPort ?? port + 1;
  const dir = mkdtempSync(join(tmpdir(), 'lucky-coturn-'));
  const conf = join(dir, 'turnserver.conf');
  const log = join(dir, 'turn.log');
  // An empty config file keeps coturn from reading /etc/turnserver.conf.
  writeFileSync(conf, '');
  const args = [
    '-c', conf,
    '--stun-only',
    '--no-auth',
    '--no-cli',
    '--no-tls',
    '--no-dtls',
    '--no-software-attribute',
    '--listening-port', String(port),
    '--alt-listening-port', String(altPort),
    ...o.listen.flatMap((a) => ['--listening-ip', a]),
    '--relay-threads', '1',
    '--userdb', join(dir, 'turndb'),
    '--pidfile', join(dir, 'turn.pid'),
    '--log-file', log,
    '--simple-log',
    '--no-stdout-log',
  ];
  const [cmd, argv] = o.netns ? ['ip', ['netns', 'exec', o.netns, 'turnserver', ...args]] : ['turnserver', args];
  const proc = spawn(cmd, argv as string[], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr?.on('data', (c) => (stderr = (stderr + c).slice(-4000)));
  let spawnError: Error | null = null;
  proc.once('error', (e) => (spawnError = e));

  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      const killer = setTimeout(() => proc.kill('SIGKILL'), 3000);
      await exited(proc);
      clearTimeout(killer);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const targets = o.listen.flatMap((a) => (o.listen.length > 1 ? [[a, port], [a, altPort]] : [[a, port]]));
  const probeArgs = ['-e', PROBE, JSON.stringify(targets), String(READY_TIMEOUT_MS)];
  const probe = spawn(o.netns ? 'ip' : process.execPath, o.netns ? ['netns', 'exec', o.netns, process.execPath, ...probeArgs] : probeArgs, { stdio: 'ignore' });
  const answered = await new Promise<boolean>((resolve) => {
    // Bounded twice: the probe gives up by itself, and a stuck probe is killed.
    const timer = setTimeout(() => probe.kill('SIGKILL'), READY_TIMEOUT_MS + 3000);
    probe.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code === 0);
    });
    proc.once('exit', () => probe.kill('SIGKILL'));
  });
  if (!answered) {
    const why = spawnError ? String(spawnError) : proc.exitCode !== null ? `exited ${proc.exitCode}` : `no answer within ${READY_TIMEOUT_MS / 1000} s`;
    const tail = logTail(log);
    await stop();
    throw new Error(`coturn on ${o.listen.join(', ')}:${port}${o.netns ? ` in ${o.netns}` : ''}: ${why}\n${stderr}\n--- log tail ---\n${tail}`);
  }
  return { port, stop };
}
