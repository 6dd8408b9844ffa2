/**
 * Opens everything the daemon runs on (base config, log, database, sessions, modules) and builds
 * the app. main.ts adds the process around it; tests open a runtime on a temp directory.
 */
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { BaseSettings } from '@lucky/contracts';
import { buildApp } from './app.js';
import type { AnyBackupPart } from './core/backupparts.js';
import { openBaseConfig, type BaseConfigStore } from './core/baseconfig.js';
import { coreMigrations, migrate, openDb, type Db } from './core/db.js';
import { refuseEmptiedDb, snapshotBeforeMigrations, Snapshots } from './core/snapshots.js';
import { AdminListener } from './core/listener.js';
import { LoginGuard, type LoginGuardOptions } from './core/loginguard.js';
import { loginLocks } from './core/loginlocks.js';
import { createProgramLog, sayer, type ProgramLog } from './core/logs.js';
import { ModuleHost } from './core/modulehost.js';
import { PortConflict, PortRegistry, type PortOwner } from './core/ports.js';
import { DEFAULT_ENV, type DaemonEnv } from './core/env.js';
import { fail } from './core/envelope.js';
import { Ret } from '@lucky/contracts';
import { Sessions } from './core/sessions.js';
import { StatusSampler } from './core/status.js';
import type { AppDeps } from './deps.js';
import { ApiTokens } from './security/apitokens.js';
import { Audit } from './security/audit.js';
import { TwoFA } from './security/twofa.js';
import { Oidc } from './security/oidc.js';
import { MODULE_TABLE } from './modules/index.js';
import type { Webhooks } from './services/webhooks.js';
import { VERSION } from './version.js';

export interface RuntimeOptions {
  dataDir: string;
  host?: string;
  port?: number;
  initialAccount?: string;
  initialPassword?: string;
  /** Where log lines go besides the ring buffer (stdout in the daemon). */
  out?: (line: string) => void;
  jsonLogs?: boolean;
  consoleDir?: string;
  supervisor?: string;
  restart?: () => void;
  /** Overrides of the saved login protection (tests). */
  loginGuard?: Partial<LoginGuardOptions>;
  /** Where updates are applied; defaults to this install (tests use a copy). */
  installRoot?: string;
  /** What the environment says (cli.ts reads it); defaults for tests. */
  env?: DaemonEnv;
}

/** The admin console owns its port in the registry like any rule. */
const CONSOLE: PortOwner = { module: 'console', key: '', name: 'console' };

export interface Runtime {
  app: FastifyInstance;
  deps: AppDeps;
  config: BaseConfigStore;
  db: Db;
  programLog: ProgramLog;
  ports: PortRegistry;
  /** Set when a random first-start password was generated: show it once. */
  generatedPassword?: string;
  created: boolean;
  listen(retryInUseMs?: number): Promise<string>;
  port(): number;
  close(): Promise<void>;
}

const here = dirname(fileURLToPath(import.meta.url));
export const DEFAULT_CONSOLE_DIR = resolve(here, '..', '..', 'console', 'dist');

export async function openRuntime(o: RuntimeOptions): Promise<Runtime> {
  mkdirSync(o.dataDir, { recursive: true, mode: 0o700 });
  const overrides: Partial<BaseSettings> = {};
  if (o.host !== undefined) overrides.AdminWebListenHost = o.host;
  if (o.port !== undefined) overrides.AdminWebListenPort = o.port;
  const opened = await openBaseConfig({
    dataDir: o.dataDir,
    overrides,
    ...(o.initialAccount ? { initialAccount: o.initialAccount } : {}),
    ...(o.initialPassword ? { initialPassword: o.initialPassword } : {}),
  });
  const config = opened.store;
  const starttime = Date.now();
  const programLog = createProgramLog({
    level: config.get().LogLevel,
    capacity: config.get().LogMaxSize,
    starttime,
    ...(o.out ? { out: o.out } : {}),
    ...(o.jsonLogs ? { json: true } : {}),
  });
  const log = programLog.logger;
  const say = sayer(log);

  refuseEmptiedDb(o.dataDir);
  const db = openDb(o.dataDir);
  const snapshots = new Snapshots(db, o.dataDir, { log: log.child({ mod: 'snapshots' }) });
  // The core's own; each module's run when it is loaded (beforeMigrations below).
  await snapshotBeforeMigrations(db, snapshots, [{ namespace: 'core', migrations: coreMigrations }]);
  migrate(db, 'core', coreMigrations);
  const sessions = new Sessions(db, () => config.get().SessionIdleHours * 3_600_000);
  sessions.purgeExpired();
  const apiTokens = new ApiTokens(db);
  // A new lucky_base.lkcf is a new login: sessions and API tokens of the old one must not survive it.
  if (opened.created) {
    sessions.revokeAll();
    apiTokens.revokeAll();
  }

  const audit = new Audit(db);
  // Single sign-on: the console's and the login portal's, one provider.
  const oidc = new Oidc(() => config.get().Oidc);
  // One lock-out for the console's login and every service with a login of its own (WebDAV, FTP).
  const guard = new LoginGuard(() => ({ ...config.get().LoginProtection, ...o.loginGuard }), Date.now, {
    store: loginLocks(db),
    onLock: (address, seconds, failures) => audit.add({ actor: 'defender', address, action: 'login locked', target: `${seconds} s after ${failures} failures`, result: 0 }),
  });
  const ports = new PortRegistry();
  // Before any rule starts: a rule on the console's own port must be the one refused.
  ports.claim([{ proto: 'tcp', address: config.get().AdminWebListenHost, port: config.get().AdminWebListenPort }], CONSOLE);
  // The daemon's own services, imported when a module first asks for one.
  let webhooks: Promise<Webhooks> | undefined;
  const modules: ModuleHost = new ModuleHost(
    MODULE_TABLE,
    {
      db,
      dataDir: o.dataDir,
      config,
      env: o.env ?? DEFAULT_ENV,
      version: VERSION,
      ports,
      loginGuard: guard,
      // A module's tables are migrated when it is first loaded, which may be long after start-up;
      // a module that has stored nothing yet has nothing a migration could lose.
      beforeMigrations: async (plan) => {
        const holding = plan.filter((p) => db.prepare('SELECT 1 FROM rules WHERE module = ? UNION ALL SELECT 1 FROM module_settings WHERE module = ? LIMIT 1').get(p.namespace, p.namespace));
        await snapshotBeforeMigrations(db, snapshots, holding);
      },
    },
    log,
    {
      webhooks: () => (webhooks ??= import('./services/webhooks.js').then((m) => new m.Webhooks())),
      // Imported when a module first asks for it (an https web rule...).
      certificates: async () => (await import('./services/certificates.js')).openCertificates(db, sayer(log)),
      // ACME HTTP-01 tokens by port, answered by the plain-HTTP listeners of web services.
      httpChallenges: async () => (await import('./services/httpchallenges.js')).httpChallenges(),
      // Settings → backup's own file, written into a folder (scheduled tasks).
      // Remote actions of the multi-device admin, one entry per device.
      audit: () => audit,
      oidc: () => oidc,
      backups: async () => {
        const { createBackup, writeBackupFile } = await import('./system/backup.js');
        return {
          write: async (folder, opts) => {
            const parts = opts.secrets ? await backupParts() : [];
            return writeBackupFile(folder, { keep: opts.keep, make: () => createBackup({ db, config, modules: modules.definitions(), version: VERSION, secrets: opts.secrets, parts }) });
          },
        };
      },
    },
  );
  // The daemon's certificate store first, then the stores of modules (ACME account keys).
  const backupParts = async (): Promise<AnyBackupPart[]> => [(await import('./services/certificates.js')).certificateStorePart(db), ...(await modules.backupParts())];
  await snapshots.takeIfDue().catch((err: unknown) => say.error({ key: 'logSnapshotFailed', vars: { detail: (err as Error).message } }, { err }));
  snapshots.startDaily();
  let listener: AdminListener | undefined;
  const status = new StatusSampler(starttime, () => ({
    admin: listener?.connections() ?? 0,
    modules: modules.connections(),
    sessions: sessions.count(),
  }));

  config.onChange((next, prev) => {
    if (next.LogLevel !== prev.LogLevel) programLog.setLevel(next.LogLevel);
    if (next.LogMaxSize !== prev.LogMaxSize) programLog.resize(next.LogMaxSize);
    if (next.EnabledModules.join() !== prev.EnabledModules.join()) void modules.sync();
  });

  const deps: AppDeps = {
    version: VERSION,
    dataDir: o.dataDir,
    config,
    db,
    snapshots,
    sessions,
    programLog,
    modules,
    backupParts,
    guard,
    apiTokens,
    audit,
    twofa: new TwoFA(config),
    oidc,
    status,
    supervisor: o.supervisor ?? 'none',
    consoleDir: o.consoleDir ?? DEFAULT_CONSOLE_DIR,
    ...(o.installRoot ? { installRoot: o.installRoot } : {}),
    async rebind(host, port) {
      if (!listener) return;
      const next = [{ proto: 'tcp' as const, address: host, port }];
      try {
        ports.check(next, CONSOLE);
      } catch (err) {
        if (err instanceof PortConflict) throw fail(Ret.failed, 'notSavedPortTaken', { detail: err.msg });
        throw err;
      }
      const address = await listener.bind(host, port);
      ports.claim(next, CONSOLE);
      say.info({ key: 'logListening', vars: { address } });
    },
    listenAddress: () => listener?.address ?? '',
    restart: o.restart ?? (() => say.warn({ key: 'logRestartUnavailable' })),
  };

  const app = await buildApp(deps, {
    serverFactory: (handler) => {
      listener = new AdminListener(handler, log);
      // Fastify wants a server object; the listener opens the real sockets itself.
      return createServer();
    },
  });
  await modules.sync();

  let closed = false;
  return {
    app,
    deps,
    config,
    db,
    programLog,
    ports,
    created: opened.created,
    ...(opened.generatedPassword ? { generatedPassword: opened.generatedPassword } : {}),
    async listen(retryInUseMs = 0) {
      const cfg = config.get();
      const address = await listener!.bind(cfg.AdminWebListenHost, cfg.AdminWebListenPort, retryInUseMs);
      say.info({ key: 'logListening', vars: { address } });
      return address;
    },
    port: () => listener?.port() ?? 0,
    async close() {
      if (closed) return;
      closed = true;
      await listener?.close();
      await modules.stopAll();
      await (await webhooks)?.close();
      await app.close();
      status.close();
      await snapshots.close();
      db.close();
    },
  };
}

