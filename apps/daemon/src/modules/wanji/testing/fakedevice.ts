/**
 * A small HTTP server answering like a Lucky device (the routes the fleet view polls: version,
 * status, module list, whoami, and the rules of its wake-on-LAN module), for tests that need many
 * devices or a device that misbehaves, and for bench/wanji. Node's modules only: the benchmark
 * imports this file transpiled on its own.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface FakeDeviceOptions {
  /** The token the device accepts (`Authorization: Bearer …`). */
  token: string;
  scope?: 'read' | 'full';
  version?: string;
  hostname?: string;
  /** Wake-on-LAN devices it lists (some of them switched off). */
  rules?: number;
  /** Accept connections and never answer (a device that hangs). */
  hang?: boolean;
  /** Wait this long before each answer, ms. */
  delayMs?: number;
}

export interface FakeDevice {
  port: number;
  url: string;
  /** Requests answered (or held, when hanging). */
  requests: number;
  /** Every Authorization header it was sent, once each. */
  authorizations: Set<string>;
  close(): Promise<void>;
}

const STARTED = Date.now();

function status(o: FakeDeviceOptions) {
  const memTotal = 2 * 1024 ** 3;
  const free = memTotal * (0.3 + Math.random() * 0.4);
  return {
    time: Date.now(),
    process: {
      pid: 4242,
      uptime: (Date.now() - STARTED) / 1000,
      startTime: STARTED,
      memory: { rss: 60e6, heapUsed: 20e6, heapTotal: 30e6, external: 2e6, arrayBuffers: 1e5 },
      cpuPercent: Math.random() * 5,
      cpuUserSeconds: 1,
      cpuSystemSeconds: 1,
      eventLoopDelay: { mean: 1, p50: 1, p99: 2, max: 3 },
      activeHandles: 5,
    },
    system: {
      hostname: o.hostname ?? 'fake',
      platform: 'linux',
      arch: 'x64',
      release: '6.1.0',
      uptime: 1000,
      loadavg: [0.1, 0.1, 0.1],
      cpus: 2,
      cpuModel: 'fake',
      cpuPercent: Math.round(Math.random() * 400) / 10,
      memTotal,
      memFree: free,
    },
    connections: { admin: 1, modules: { wol: 0 } },
    sessions: 0,
    runtime: { node: '20.0.0', v8: '11.0' },
  };
}

function wolRule(i: number) {
  const now = Date.now();
  return {
    key: `fake${i}`,
    name: `device ${i}`,
    enable: i % 4 !== 3,
    macs: [`02:00:00:00:00:${(i % 256).toString(16).padStart(2, '0')}`],
    broadcast: '255.255.255.255',
    port: 9,
    secureOn: '',
    repeat: 3,
    interface: '',
    targets: [],
    checkHost: '',
    checkPort: 0,
    shutdown: { kind: 'none', command: '', url: '', method: 'GET', body: '', timeout: 30 },
    note: '',
    status: i % 4 === 3 ? { state: 'disabled', message: '', since: now } : { state: 'running', message: '', since: now },
    created: now,
    updated: now,
    lastWake: null,
  };
}

export async function fakeDevice(o: FakeDeviceOptions): Promise<FakeDevice> {
  const sockets = new Set<Socket>();
  const rules = Array.from({ length: o.rules ?? 3 }, (_, i) => wolRule(i));
  const device: FakeDevice = { port: 0, url: '', requests: 0, authorizations: new Set(), close: async () => undefined };
  const server: Server = createServer((req, res) => {
    device.requests++;
    if (req.headers.authorization) device.authorizations.add(req.headers.authorization);
    if (o.hang) return;
    const path = (req.url ?? '').split('?')[0];
    const send = (body: unknown) => {
      const text = JSON.stringify(body);
      const out = () => res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) }).end(text);
      if (o.delayMs) setTimeout(out, o.delayMs);
      else out();
    };
    if (path === '/version') return send({ ret: 0, version: o.version ?? '0.1.0', twoFAEnable: false });
    if (req.headers.authorization !== `Bearer ${o.token}`) return send({ ret: -1, msg: 'session invalid' });
    if (path === '/api/status') return send({ ret: 0, data: status(o) });
    if (path === '/api/modules/list') return send({ ret: 0, Modules: ['wol'], u: 'admin' });
    if (path === '/api/whoami') return send({ ret: 0, account: 'admin', via: 'token', name: 'fleet', scope: o.scope ?? 'full' });
    if (path === '/api/wol/rules') return send({ ret: 0, list: rules });
    send({ ret: 3, msg: 'No such API' });
  });
  server.keepAliveTimeout = 30_000;
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  device.port = (server.address() as AddressInfo).port;
  device.url = `http://127.0.0.1:${device.port}`;
  device.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return device;
}
