/**
 * Runs the modules of the table in modules/index.ts. A module is imported only when it is switched
 * on or when a service it provides is asked for; its routes are registered from its contract at
 * start-up (they answer "module disabled" while it is off) and dispatch to it once loaded. The host
 * wires services in dependency order and refuses a cycle, starts and stops modules when their
 * switch changes, and offers every module's rules to the `actions` and `rules` services.
 */
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { MODULE_CONTRACTS, Ret, RULE_ROUTE_NAMES, type BackupStoreName, type Lang, type ModuleContract, type ModuleKey, type RouteDef, type SettingsUpgrade } from '@lucky/contracts';
import type { AnyBackupPart } from './backupparts.js';
import type { BaseConfigStore } from './baseconfig.js';
import { migrate, type Db, type Migration } from './db.js';
import { presentStatus } from './engine.js';
import { DEFAULT_ENV, type DaemonEnv } from './env.js';
import { AppError, fail } from './envelope.js';
import { LoginGuard } from './loginguard.js';
import { sayer, type Logger, type Say } from './logs.js';
import type { Metrics } from './metrics.js';
import type { AnyModule, ModuleContext } from './module.js';
import { moduleName, PortRegistry } from './ports.js';
import { addRoute, type Handler } from './routes.js';
import { RuleLog } from './rulelog.js';
import { RuleOps } from './ruleops.js';
import { RuleRuntime, type RuleData } from './ruleruntime.js';
import { rulesService, RuleStatusWatchers } from './rulesservice.js';
import { RuleStore, SettingsStore } from './rulestore.js';
import type { ActionsService, ServiceMap, ServiceName } from './services/index.js';

/** A module in the table: its key, the services it provides (known before it is loaded) and its loader. */
export interface ModuleEntry {
  key: ModuleKey;
  provides?: readonly ServiceName[];
  /** Stores of its own that backups with secrets carry (known before it is loaded, like `provides`). */
  keeps?: readonly BackupStoreName[];
  load(): Promise<{ default: AnyModule }>;
}

/** What backups need to know of a module. */
export interface ModuleData {
  key: string;
  data?: { rule: z.ZodType; settings: z.ZodType; upgradeSettings?: SettingsUpgrade };
}

export interface HostContext {
  db: Db;
  dataDir: string;
  config: BaseConfigStore;
  env?: Readonly<DaemonEnv>;
  /** This daemon's version (modules that talk to other Lucky devices compare theirs with it). */
  version?: string;
  ports: PortRegistry;
  /** The console's login protection, shared with modules that have logins of their own; a new one when absent (tests). */
  loginGuard?: LoginGuard;
  /** Called before a module's pending migrations run (a snapshot of lucky.db is taken). */
  beforeMigrations?(plan: Array<{ namespace: string; migrations: readonly Migration[] }>): Promise<void>;
}

/** Services the daemon itself provides (not a module). */
export type HostServices = { [K in ServiceName]?: () => ServiceMap[K] | Promise<ServiceMap[K]> };

type Ops = RuleOps<ModuleContract, RuleData, unknown, unknown>;

interface Loaded {
  spec: AnyModule;
  ctx: ModuleContext<ModuleContract, ServiceName>;
  ops: Ops;
  runtime: RuleRuntime<RuleData, unknown, unknown>;
  handlers: Record<string, Handler<RouteDef>>;
}

export class ModuleHost {
  private loads = new Map<ModuleKey, Promise<Loaded>>();
  private loaded = new Map<ModuleKey, Loaded>();
  private running = new Set<ModuleKey>();
  private services = new Map<ServiceName, Promise<unknown>>();
  /** Switches are applied one at a time, in order. */
  private queue: Promise<void> = Promise.resolve();
  private say: Say;
  private env: Readonly<DaemonEnv>;
  private loginGuard: LoginGuard;
  /** Listeners of the `rules` service to each module's rule statuses. */
  private watchers = new RuleStatusWatchers();

  constructor(
    private table: readonly ModuleEntry[],
    private ctx: HostContext,
    private log: Logger,
    private hostServices: HostServices = {},
  ) {
    this.say = sayer(log);
    this.env = ctx.env ?? DEFAULT_ENV;
    this.loginGuard = ctx.loginGuard ?? new LoginGuard(() => ctx.config.get().LoginProtection);
    this.hostServices = {
      actions: () => this.actions(),
      rules: () => rulesService({ running: async (m) => (await this.runningModule(m)).ops, has: (m) => this.entry(m as ModuleKey) !== undefined, watchers: this.watchers }),
      ...hostServices,
    };
  }

  private entry(key: ModuleKey): ModuleEntry | undefined {
    return this.table.find((m) => m.key === key);
  }

  /** Imports and sets up a module (once); `chain` is the modules waiting for it, to find a cycle. */
  load(key: ModuleKey, chain: readonly ModuleKey[] = []): Promise<Loaded> {
    if (chain.includes(key)) return Promise.reject(new Error(`modules need each other's services in a cycle: ${[...chain, key].join(' → ')}`));
    let p = this.loads.get(key);
    if (!p) {
      p = this.setUp(key, chain);
      this.loads.set(key, p);
      // A module that failed to load may be tried again (after an update, a fixed table...).
      p.catch(() => this.loads.delete(key));
    }
    return p;
  }

  private async setUp(key: ModuleKey, chain: readonly ModuleKey[]): Promise<Loaded> {
    const entry = this.entry(key);
    if (!entry) throw new Error(`no module ${key} in the table`);
    const spec = (await entry.load()).default;
    if (spec.key !== key) throw new Error(`module table entry ${key} loads module ${spec.key}`);
    const declared = Object.keys(spec.services?.provides ?? {}).sort().join();
    if (declared !== [...(entry.provides ?? [])].sort().join()) throw new Error(`module ${key}: the table says it provides [${entry.provides?.join() ?? ''}], it provides [${declared}]`);
    if (!!spec.backup !== !!entry.keeps?.length) throw new Error(`module ${key}: the table's \`keeps\` and the module's \`backup\` disagree`);
    await this.ctx.beforeMigrations?.([{ namespace: key, migrations: spec.migrations ?? [] }]);
    migrate(this.ctx.db, key, spec.migrations ?? []);
    const services: Partial<ServiceMap> = {};
    for (const need of spec.services?.needs ?? []) (services as Record<string, unknown>)[need] = await this.service(need, [...chain, key]);

    const logger = this.log.child({ mod: key });
    const say = sayer(logger);
    const contract = spec.contract;
    const store = new RuleStore(this.ctx.db, key, contract.rule, logger);
    const settings = new SettingsStore(this.ctx.db, key, contract.configure, contract.upgradeSettings);
    const logs = new RuleLog();
    // ctx is completed below: the engine and hooks receive it and must see `rules`.
    const ctx = { key, db: this.ctx.db, dataDir: this.ctx.dataDir, config: this.ctx.config, env: this.env, version: this.ctx.version ?? '', say, log: logger, services, loginGuard: this.loginGuard } as unknown as ModuleContext<ModuleContract, ServiceName>;
    const runtime = new RuleRuntime<RuleData, unknown, unknown>({
      module: key,
      store: store as never,
      settings: () => settings.get(),
      engine: () => spec.engine(ctx) as never,
      ...(spec.listens ? { listens: (r: RuleData) => spec.listens!(r as never) } : {}),
      ports: this.ctx.ports,
      say,
      logs,
      // Called only once the module is set up (a rule applied), when `ops` is there.
      changed: (k) => this.watchers.changed(key, k, ops),
    });
    const ops: Ops = new RuleOps({
      module: key,
      contract,
      store,
      settings,
      runtime,
      logs,
      say,
      hooks: {
        ...(spec.prepare ? { prepare: (r: RuleData, prev: RuleData | undefined) => spec.prepare!(r as never, prev as never, ctx) as never } : {}),
        ...(spec.view ? { view: (r, figures, lang) => spec.view!(r as never, figures, lang, ctx) } : {}),
        ...(spec.removed ? { removed: (k: string) => spec.removed!(k, ctx) } : {}),
        ...(spec.switched ? { switched: (k: string, enable: boolean) => spec.switched!(k, enable, ctx) } : {}),
        ...(spec.guardRemove ? { guardRemove: (r) => spec.guardRemove!(r as never, ctx) } : {}),
        ...(spec.startsOrRefuses ? { mustStart: true } : {}),
      },
    }) as Ops;
    Object.assign(ctx, { rules: ops, engine: () => runtime.loadEngine() });
    const handlers = (spec.routes?.(ctx) ?? {}) as Record<string, Handler<RouteDef>>;
    for (const name of Object.keys(contract.routes)) {
      if (!(RULE_ROUTE_NAMES as readonly string[]).includes(name) && !handlers[name]) throw new Error(`module ${key} has no handler for its route ${name}`);
    }
    const loaded: Loaded = { spec, ctx, ops, runtime, handlers };
    this.loaded.set(key, loaded);
    return loaded;
  }

  /** A service by name: the daemon's own, or the module that provides it (loaded if need be). */
  service<K extends ServiceName>(name: K, chain: readonly ModuleKey[] = []): Promise<ServiceMap[K]> {
    let p = this.services.get(name);
    if (!p) {
      p = this.makeService(name, chain);
      this.services.set(name, p);
      p.catch(() => this.services.delete(name));
    }
    return p as Promise<ServiceMap[K]>;
  }

  private async makeService<K extends ServiceName>(name: K, chain: readonly ModuleKey[]): Promise<ServiceMap[K]> {
    const own = this.hostServices[name];
    if (own) return own();
    const provider = this.table.find((m) => (m.provides ?? []).includes(name));
    if (!provider) throw new Error(`no module provides the service ${name}`);
    const m = await this.load(provider.key, chain);
    const make = (m.spec.services?.provides as Record<string, (ctx: unknown) => unknown> | undefined)?.[name];
    if (!make) throw new Error(`module ${provider.key} does not provide ${name}`);
    return (await make(m.ctx)) as ServiceMap[K];
  }

  /** Every module's routes, each in its own scope that answers "module disabled" while it is off. */
  routes(app: FastifyInstance, allKeys: readonly ModuleKey[]): void {
    for (const key of allKeys) {
      const contract = this.entry(key) ? MODULE_CONTRACTS[key] : undefined;
      void app.register(async (scope) => {
        scope.addHook('onRequest', async () => {
          if (!this.ctx.config.isModuleEnabled(key)) throw fail(Ret.moduleDisabled, 'moduleDisabled', { module: key });
        });
        if (contract) this.kitRoutes(scope, key, contract);
        else {
          // A module of the spec that this build does not have yet: say so plainly.
          scope.all(`/api/${key}/*`, async () => {
            throw fail(Ret.notAvailable, 'notAvailable');
          });
        }
      });
    }
  }

  private kitRoutes(app: FastifyInstance, key: ModuleKey, contract: ModuleContract): void {
    const R = contract.routes;
    const ops = async () => (await this.load(key)).ops;
    addRoute(app, R.list, async ({ req }) => {
      const o = await ops();
      return { list: await Promise.all(o.list().map((r) => o.view(r, req.lang))) } as never;
    });
    addRoute(app, R.create, async ({ body, req }) => ({ key: await (await ops()).create(body, req.lang) }), { rawBody: true });
    addRoute(app, R.get, async ({ params, req }) => {
      const o = await ops();
      return { rule: await o.view(o.require(params.key), req.lang) } as never;
    });
    addRoute(app, R.update, async ({ params, body, req }) => {
      await (await ops()).update(params.key, body, req.lang);
      return {};
    }, { rawBody: true });
    addRoute(app, R.remove, async ({ params, query }) => {
      await (await ops()).remove(params.key, { confirm: query.confirm === '1' || query.confirm === 'true' });
      return {};
    });
    addRoute(app, R.enable, async ({ params, body }) => {
      await (await ops()).enable(params.key, body.enable);
      return {};
    });
    addRoute(app, R.logs, async ({ params, query, req }) => {
      const o = await ops();
      o.require(params.key);
      return { logs: o.logs.since(params.key, query.pre, req.lang) };
    });
    addRoute(app, R.getConfigure, async () => ({ configure: (await ops()).settingsView() }) as never);
    addRoute(app, R.putConfigure, async ({ body, req }) => {
      await (await ops()).putSettings(body, req.lang);
      return {};
    }, { rawBody: true });
    for (const [name, def] of Object.entries(R)) {
      if ((RULE_ROUTE_NAMES as readonly string[]).includes(name)) continue;
      addRoute(app, def, async (c) => (await this.load(key)).handlers[name]!(c));
    }
  }

  /** Brings running modules in line with the enabled list. */
  sync(): Promise<void> {
    this.queue = this.queue.then(async () => {
      for (const def of this.table) {
        const key = def.key;
        const want = this.ctx.config.isModuleEnabled(key);
        if (want && !this.running.has(key)) await this.startModule(key);
        else if (!want && this.running.has(key)) await this.stopModule(key);
      }
    });
    return this.queue;
  }

  private async startModule(key: ModuleKey): Promise<void> {
    this.running.add(key);
    try {
      const rules = await (await this.load(key)).runtime.startAll();
      this.say.info({ key: 'moduleStarted', vars: { module: moduleName(key), rules } });
    } catch (err) {
      this.say.error({ key: 'moduleFailed', vars: { module: moduleName(key), detail: (err as Error).message } }, { err });
    }
  }

  private async stopModule(key: ModuleKey): Promise<void> {
    this.running.delete(key);
    try {
      await this.loaded.get(key)?.runtime.stopAll();
      this.say.info({ key: 'moduleStopped', vars: { module: moduleName(key) } });
    } catch (err) {
      this.say.error({ key: 'moduleFailed', vars: { module: moduleName(key), detail: (err as Error).message } }, { err });
    }
  }

  /** Stops every engine and starts the enabled ones again from what is stored (after a restore). */
  async reload(): Promise<void> {
    await this.stopAll();
    await this.sync();
  }

  /** The modules whose data backups carry: the schemas of their rules and settings. */
  definitions(): ModuleData[] {
    return this.table.map((m) => {
      const c = MODULE_CONTRACTS[m.key];
      return c ? { key: m.key, data: { rule: c.rule, settings: c.configure, ...(c.upgradeSettings ? { upgradeSettings: c.upgradeSettings } : {}) } } : { key: m.key };
    });
  }

  /** Every module's series for /metrics: the kit's of each rule, then the module's own from its figures. */
  async metrics(m: Metrics): Promise<void> {
    const enabled = m.gauge('lucky_module_enabled', 'Whether the module is switched on (1) or off (0).');
    const connections = m.gauge('lucky_module_connections', 'Live connections or sessions across the module\'s rules.');
    const info = m.gauge('lucky_rule_info', 'A rule of a module, its name as a label; always 1.');
    const ruleEnabled = m.gauge('lucky_rule_enabled', 'Whether the rule is switched on (1) or off (0).');
    const up = m.gauge('lucky_rule_up', 'Whether the rule runs without a problem (1) or not (0: stopped, disabled or in error).');
    const error = m.gauge('lucky_rule_error', 'Whether the rule shows an error (1) or not (0).');
    for (const { key } of this.table) {
      const on = this.running.has(key);
      enabled.set({ module: key }, on ? 1 : 0);
      const mod = on ? this.loaded.get(key) : undefined;
      if (!mod) continue;
      connections.set({ module: key }, mod.runtime.connections());
      const rules = await Promise.all(
        mod.ops.list().map(async (r) => ({
          key: r.key,
          rule: r.data,
          figures: r.data.enable ? await mod.runtime.figures(r.key).catch(() => undefined) : undefined,
          state: mod.ops.status(r).state,
        })),
      );
      for (const r of rules) {
        const l = { module: key, rule: r.key };
        info.set({ ...l, name: r.rule.name }, 1);
        ruleEnabled.set(l, r.rule.enable ? 1 : 0);
        up.set(l, r.state === 'running' ? 1 : 0);
        error.set(l, r.state === 'error' ? 1 : 0);
      }
      try {
        await mod.spec.metrics?.(rules, m, mod.ctx as never);
      } catch (err) {
        // One module's collector failing must not take the others' series with it.
        this.say.warn({ key: 'logMetricsFailed', vars: { module: moduleName(key), detail: (err as Error)?.message ?? String(err) } }, { err });
      }
    }
  }

  /**
   * The stores of modules that backups with secrets carry, each module loaded for it (its tables
   * made, on a new install too) whether it is switched on or not.
   */
  async backupParts(): Promise<AnyBackupPart[]> {
    const parts: AnyBackupPart[] = [];
    for (const entry of this.table.filter((m) => m.keeps?.length)) {
      const m = await this.load(entry.key);
      const part = m.spec.backup!(m.ctx);
      if (!entry.keeps!.includes(part.name)) throw new Error(`module ${entry.key}: its backup part ${part.name} is not in the table's \`keeps\``);
      parts.push(part);
    }
    return parts;
  }

  connections(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const key of this.running) out[key] = this.loaded.get(key)?.runtime.connections() ?? 0;
    return out;
  }

  async stopAll(): Promise<void> {
    await this.queue;
    for (const key of [...this.running]) await this.stopModule(key);
    // Modules loaded only for a service they provide may hold an engine too (its connections).
    for (const [key, m] of this.loaded) if (!this.running.has(key)) await m.runtime.stopAll().catch(() => undefined);
  }

  /** A running module on the kit, or the "module disabled" error. */
  private async runningModule(key: string): Promise<Loaded> {
    if (!this.running.has(key as ModuleKey)) throw fail(Ret.moduleDisabled, 'moduleDisabled', { module: key });
    if (!this.entry(key as ModuleKey)) throw fail(Ret.notAvailable, 'notAvailable');
    return this.load(key as ModuleKey);
  }

  private actions(): ActionsService {
    return {
      modules: () => [...this.running],
      rules: async (module, lang: Lang = 'en_US') => {
        const m = await this.runningModule(module);
        return m.ops.list().map((r) => ({
          key: r.key,
          name: r.data.name,
          enable: r.data.enable,
          status: presentStatus(m.ops.status(r), lang),
          canRun: m.spec.run !== undefined,
          operations: Object.keys(m.spec.operations ?? {}),
        }));
      },
      setEnabled: async (module, key, enable) => (await this.runningModule(module)).ops.enable(key, enable),
      run: async (module, key, operation) => {
        const m = await this.runningModule(module);
        const fn = operation === undefined ? m.spec.run : Object.hasOwn(m.spec.operations ?? {}, operation) ? m.spec.operations![operation] : undefined;
        if (!fn) throw new AppError(Ret.notAvailable, 'notAvailable');
        return fn(m.ops.require(key) as never, m.ctx);
      },
    };
  }
}
