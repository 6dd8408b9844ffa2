/**
 * The web engine driven as the kit drives it: a real RuleRuntime (port claims, statuses, the rule's
 * log, in-place updates) over rules kept in memory, the daemon's certificate store on a lucky.db of
 * the test's own, and a firewall that only says what it did.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { renderMsg, type Lang, type RuleStatus, type WebConfigure, type WebFigures, type WebRule } from '@lucky/contracts';
import { presentStatus } from '../../../core/engine.js';
import { sayer } from '../../../core/logs.js';
import { PortRegistry } from '../../../core/ports.js';
import { RuleLog } from '../../../core/rulelog.js';
import { RuleRuntime } from '../../../core/ruleruntime.js';
import type { CertificatesService } from '../../../core/services/certificates.js';
import { httpChallenges } from '../../../test/services.js';
import { testCertificates } from '../../../test/certificates.js';
import { WebEngine, type WebRunFigures } from '../web.engine.js';
import type { CertificateOrdersService } from '../../../core/services/certificateOrders.js';

/** The engine alone has no certificates module: a rule with an automatic certificate is the daemon tests' (web.autohttps.test.ts). */
const NO_ORDERS: CertificateOrdersService = {
  nameFor: (o) => `auto-${o.module}-${o.key}`,
  ensure: () => Promise.reject(new Error('no certificates module beside the engine alone')),
  watch: () => () => {},
  problem: () => null,
  release: () => Promise.resolve(),
};
import type { Firewall } from '../web.firewall.js';
import { endpointOf } from '../web.listen.js';

/** Says it could not open anything, as a host without nftables would. */
export const fakeFirewall: Firewall = { open: async () => ({ key: 'fwFailed', vars: { detail: 'test' } }), close: async () => undefined };

export interface EngineRunner {
  engine: WebEngine;
  ports: PortRegistry;
  /** The certificate store the engine reads (the daemon's, on the test's own lucky.db). */
  certificates: CertificatesService;
  /** Stores the rule (enabled) and applies it: started, updated in place or restarted. */
  start(key: string, rule: WebRule): Promise<void>;
  stop(key: string): Promise<void>;
  status(key: string, lang?: Lang): RuleStatus;
  figures(key: string): Promise<WebFigures>;
  /** What the firewall switch did, rendered; null while it is off. */
  firewall(key: string, lang?: Lang): Promise<string | null>;
  accessLog(key: string, limit: number): Promise<{ list: Array<{ path: string; time: number; sub: string; status: number; bytes: number }>; total: number }>;
  logs(key: string, lang?: Lang): string[];
  close(): Promise<void>;
}

/** `threads`: the module's servingThreads, or 'main' for the main thread only (mainThreadOnly). */
export function runEngine(threads: number | 'main', o: { firewall?: Firewall; engine?: 'native' | 'node'; nativeRelay?: boolean } = {}): EngineRunner {
  const dir = mkdtempSync(join(tmpdir(), 'lucky-web-engine-'));
  const certs = testCertificates(dir);
  const say = sayer(pino({ level: 'silent' }));
  const rules = new Map<string, WebRule>();
  const settings: WebConfigure = { accessLogShow: 50, servingThreads: threads === 'main' ? 0 : threads, mainThreadOnly: threads === 'main' };
  const engine = new WebEngine({ env: { nativeRelay: o.nativeRelay ?? true, webEngine: o.engine ?? 'node' }, say, certificates: certs.service, challenges: httpChallenges(), orders: () => NO_ORDERS, settings: () => settings, firewall: o.firewall ?? fakeFirewall });
  const ports = new PortRegistry();
  const logs = new RuleLog();
  const runtime = new RuleRuntime<WebRule, WebConfigure, WebRunFigures>({
    module: 'web',
    store: {
      get: (key) => (rules.has(key) ? { data: rules.get(key)! } : undefined),
      list: () => [...rules].map(([key, data]) => ({ key, data })),
    },
    settings: () => settings,
    engine: async () => engine,
    listens: (r) => [endpointOf(r)],
    ports,
    say,
    logs,
    // A failed start is retried only when the test asks.
    retry: { firstMs: 600_000, maxMs: 600_000 },
  });
  void runtime.startAll();
  return {
    engine,
    ports,
    certificates: certs.service,
    start: (key, rule) => {
      rules.set(key, rule);
      return runtime.apply(key);
    },
    stop: (key) => {
      rules.delete(key);
      return runtime.apply(key);
    },
    status: (key, lang = 'en_US') => presentStatus(runtime.status(key), lang),
    figures: async (key) => (await runtime.figures(key))?.traffic ?? { requests: 0, bytesIn: 0, bytesOut: 0, connections: 0, codes: {} },
    firewall: async (key, lang = 'en_US') => {
      const note = (await runtime.figures(key))?.firewall;
      return note ? renderMsg(lang, note) : null;
    },
    accessLog: async (key, limit) => engine.accessLog(key, limit),
    logs: (key, lang = 'en_US') => logs.since(key, 0, lang).map((l) => l.log),
    close: async () => {
      await runtime.stopAll();
      certs.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The ways rules are served, for tests that run on all of them: the native data plane (two edge
 * threads, with the rule's Node server behind them), and Node's HTTP servers (LUCKY_WEB_ENGINE=node)
 * on the main thread and on two serving threads (SO_REUSEPORT sockets). The native ones need
 * `npm run build` (the addon and the serving thread's worker).
 */
export const ENGINES: Array<[string, () => EngineRunner]> = [
  [
    'native',
    () => {
      const r = runEngine(2, { engine: 'native' });
      if (!r.engine.native) throw new Error('the native data plane needs `npm run build` (the native addon)');
      return r;
    },
  ],
  ['node, main thread', () => runEngine('main')],
  [
    'node, serving threads',
    () => {
      const r = runEngine(2);
      if (r.engine.servingThreads !== 2) throw new Error('serving threads need `npm run build` (native addon and worker)');
      return r;
    },
  ],
];

/** Polls `cond` until it holds; throws after `ms`. */
export async function waitFor(cond: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('condition not met in time');
}

/** A test backend on a free loopback port: its port, and a close that cuts what is still open. */
export async function onLoopback(server: Server): Promise<{ port: number; close(): Promise<void> }> {
  const port = await new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as { port: number }).port)));
  return {
    port,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
