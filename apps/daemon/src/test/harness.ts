/**
 * A real daemon runtime on a temp data directory for tests: real SQLite file, real config file,
 * the real app. `call` goes through Fastify's inject with the session token; `listen` opens a
 * real socket on a free port when a test needs one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TOKEN_HEADER } from '@lucky/contracts';
import { setResponseChecking } from '../core/routes.js';
import { openRuntime, type Runtime, type RuntimeOptions } from '../runtime.js';

export const TEST_PASSWORD = 'test-password-1';

export interface TestDaemon {
  runtime: Runtime;
  dataDir: string;
  token: string;
  /** JSON call with the session token (unless `token: null`). */
  call<T = Record<string, unknown>>(
    method: string,
    url: string,
    body?: unknown,
    opts?: { token?: string | null; headers?: Record<string, string>; remoteAddress?: string },
  ): Promise<T & { ret: number; msg?: string }>;
  close(): Promise<void>;
}

function systemPort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, host, () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

/**
 * Ports this process handed out: a test daemon's console port is claimed in its port registry but
 * never bound (its requests go through inject), so the system may offer the same number again, and
 * a rule saved on it was refused as "the admin console's port" (seen once in CI).
 */
const handedOut = new Set<number>();

/** A port free now, never one this process handed out before. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  for (let i = 0; ; i++) {
    const port = await systemPort(host);
    if (!handedOut.has(port) || i >= 50) {
      handedOut.add(port);
      return port;
    }
  }
}

export async function startTestDaemon(opts: Partial<RuntimeOptions> & { dataDir?: string; keepDir?: boolean } = {}): Promise<TestDaemon> {
  setResponseChecking(true);
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'lucky-test-'));
  const runtime = await openRuntime({
    initialPassword: TEST_PASSWORD,
    port: opts.port ?? (await freePort()),
    host: opts.host ?? '127.0.0.1',
    consoleDir: join(dataDir, 'no-console'),
    loginGuard: { freeFailures: 1000, globalFailuresPerMinute: 10000 },
    ...opts,
    dataDir,
  });
  const call: TestDaemon['call'] = async (method, url, body, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    const token = o.token === undefined ? daemon.token : o.token;
    if (token) headers[TOKEN_HEADER] = token;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await runtime.app.inject({
      method: method as 'GET',
      url,
      headers,
      ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      ...(o.remoteAddress ? { remoteAddress: o.remoteAddress } : {}),
    });
    if (res.statusCode !== 200) throw new Error(`${method} ${url}: HTTP ${res.statusCode} ${res.body}`);
    return res.json();
  };
  const daemon: TestDaemon = {
    runtime,
    dataDir,
    token: '',
    call,
    async close() {
      await runtime.close();
      if (!opts.keepDir && !opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  const login = await call<{ token: string }>(
    'POST',
    '/api/login',
    { Account: runtime.config.get().AdminAccount, Password: opts.initialPassword ?? TEST_PASSWORD },
    { token: null },
  );
  if (login.ret !== 0) throw new Error(`test login failed: ${login.msg}`);
  daemon.token = login.token;
  return daemon;
}
