/**
 * The config loader: command line and environment, the one place that reads process.env. Flags win
 * over LUCKY_* variables; anything invalid exits with code 2.
 */
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { z } from 'zod';
import { ZListenHost, formatIssues } from '@lucky/contracts';
import type { DaemonEnv } from './core/env.js';

export const USAGE = `Usage: node apps/daemon/dist/main.js [--port 16601] [--host ::] [--data-dir ./data]

  --port, -p      admin console port (env LUCKY_PORT)
  --host          admin console address, :: for all (env LUCKY_HOST)
  --data-dir, -d  where lucky_base.lkcf and lucky.db live (env LUCKY_DATA_DIR, default ./data)
  --disable-2fa   switch two-factor login off (for a locked-out owner), then exit
  --reset-safe-url  remove the safe entry path, then exit
  --restore-snapshot <file|latest>
                  put a snapshot of lucky.db back (latest, or a file in <data-dir>/snapshots), then exit;
                  the lucky.db it replaces is kept as lucky.db.damaged-<time> (or .replaced-<time>)
  --version, -v   print the version
  --help, -h      this text

First start: the account is LUCKY_ADMIN_USER / LUCKY_ADMIN_PASSWORD when set, otherwise "admin"
with a random password printed once. Delete lucky_base.lkcf to reset the login and the settings.
lucky.db is copied to <data-dir>/snapshots daily, before upgrades and before restores (the last 7 kept).`;

const ZCli = z.object({
  port: z.coerce.number().int().min(1).max(65535).optional(),
  host: ZListenHost.optional(),
  dataDir: z.string().min(1),
  adminUser: z.string().trim().min(1).max(64).optional(),
  adminPassword: z.string().min(1).max(256).optional(),
  restoreSnapshot: z.string().min(1).optional(),
});
export type CliOptions = z.infer<typeof ZCli> & {
  help: boolean;
  version: boolean;
  disable2fa: boolean;
  resetSafeUrl: boolean;
  /** Started by a self-restart: wait for the old process to free the console port. */
  restarted: boolean;
  /** Who restarts Lucky when it exits with 75: npm, docker, systemd, or 'self'. */
  supervisor: string;
  jsonLogs: boolean;
  consoleDir?: string;
  env: DaemonEnv;
};

export class CliError extends Error {}

export function parseCli(argv: string[], env: NodeJS.ProcessEnv = process.env): CliOptions {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string', short: 'p' },
        host: { type: 'string' },
        'data-dir': { type: 'string', short: 'd' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
        'disable-2fa': { type: 'boolean' },
        'reset-safe-url': { type: 'boolean' },
        'restore-snapshot': { type: 'string' },
        // Internal: set by a self-restart on its replacement.
        restarted: { type: 'boolean' },
      },
    }));
  } catch (err) {
    throw new CliError((err as Error).message.split('\n')[0]);
  }
  const raw = {
    port: values.port ?? (env.LUCKY_PORT || undefined),
    host: values.host ?? env.LUCKY_HOST,
    dataDir: resolve(String(values['data-dir'] ?? (env.LUCKY_DATA_DIR || './data'))),
    adminUser: env.LUCKY_ADMIN_USER || undefined,
    adminPassword: env.LUCKY_ADMIN_PASSWORD || undefined,
    restoreSnapshot: values['restore-snapshot'],
  };
  const parsed = ZCli.safeParse(raw);
  if (!parsed.success) {
    const names: Record<string, string> = {
      port: '--port / LUCKY_PORT',
      host: '--host / LUCKY_HOST',
      dataDir: '--data-dir / LUCKY_DATA_DIR',
      adminUser: 'LUCKY_ADMIN_USER',
      adminPassword: 'LUCKY_ADMIN_PASSWORD',
      restoreSnapshot: '--restore-snapshot',
    };
    const field = String(parsed.error.issues[0]?.path[0] ?? '');
    const detail = formatIssues(ZCli, raw, 'en_US').replace(/^Invalid \S+: /, '');
    throw new CliError(`invalid ${names[field] ?? field}: ${detail}`);
  }
  return {
    ...parsed.data,
    help: values.help === true,
    version: values.version === true,
    disable2fa: values['disable-2fa'] === true,
    resetSafeUrl: values['reset-safe-url'] === true,
    restarted: values.restarted === true,
    supervisor: env.LUCKY_SUPERVISOR || (env.INVOCATION_ID ? 'systemd' : 'self'),
    jsonLogs: env.LUCKY_LOG_FORMAT === 'json',
    ...(env.LUCKY_CONSOLE_DIR ? { consoleDir: env.LUCKY_CONSOLE_DIR } : {}),
    env: daemonEnv(env),
  };
}

function daemonEnv(env: NodeJS.ProcessEnv): DaemonEnv {
  const childEnv = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
  const out: DaemonEnv = { nativeRelay: env.LUCKY_NATIVE_RELAY !== '0', childEnv };
  const threads = env.LUCKY_WEB_THREADS;
  if (threads === 'main') out.webThreads = 'main';
  else if (threads !== undefined && threads !== '') out.webThreads = Math.max(0, Math.min(64, Math.floor(Number(threads)) || 0));
  const engine = env.LUCKY_WEB_ENGINE;
  if (engine !== undefined && engine !== '') {
    if (engine !== 'native' && engine !== 'node') throw new CliError(`invalid LUCKY_WEB_ENGINE: ${engine} (native or node)`);
    out.webEngine = engine;
  }
  // Fake provider APIs for tests and benchmarks only: a production daemon must never be pointed elsewhere.
  if (env.LUCKY_DDNS_TEST_ENDPOINTS && (env.VITEST || env.NODE_ENV === 'test')) {
    try {
      out.ddnsTestEndpoints = z.record(z.string(), z.string()).parse(JSON.parse(env.LUCKY_DDNS_TEST_ENDPOINTS));
    } catch {
      throw new CliError('invalid LUCKY_DDNS_TEST_ENDPOINTS: not a JSON object of strings');
    }
  }
  return out;
}
