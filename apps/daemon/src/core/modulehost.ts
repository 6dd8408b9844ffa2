/**
 * Runs the modules of the table in modules/index.ts: migrates their tables, mounts their routes
 * behind the module switch, and starts or stops their engines when the switch changes.
 */
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { Ret, type ModuleKey } from '@lucky/contracts';
import type { BaseConfigStore } from './baseconfig.js';
import { migrate, type Db, type Migration } from './db.js';
import { fail } from './envelope.js';
import type { Logger } from './logs.js';

export interface ModuleContext {
  db: Db;
  log: Logger;
  dataDir: string;
  config: BaseConfigStore;
}

export interface ModuleInstance {
  routes(app: FastifyInstance): void;
  /** Starts the engines of every enabled rule. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Live connections or sessions, for /api/status. */
  connections(): number;
}

export interface ModuleDef {
  key: ModuleKey;
  migrations?: Migration[];
  /** The schemas of its stored rules and settings: backups are checked with them before a restore. */
  data?: { rule: z.ZodType; settings: z.ZodType };
  create(ctx: ModuleContext): ModuleInstance;
}

export class ModuleHost {
  private instances = new Map<ModuleKey, ModuleInstance>();
  private running = new Set<ModuleKey>();
  /** Switches are applied one at a time, in order. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private defs: readonly ModuleDef[],
    private ctx: Omit<ModuleContext, 'log'>,
    private log: Logger,
  ) {
    for (const def of defs) {
      if (def.migrations) migrate(ctx.db, def.key, def.migrations);
      this.instances.set(def.key, def.create({ ...ctx, log: log.child({ mod: def.key }) }));
    }
  }

  get(key: ModuleKey): ModuleInstance | undefined {
    return this.instances.get(key);
  }

  /** Every module's routes, each in its own scope that answers "module disabled" while it is off. */
  routes(app: FastifyInstance, allKeys: readonly ModuleKey[]): void {
    for (const key of allKeys) {
      const instance = this.instances.get(key);
      void app.register(async (scope) => {
        scope.addHook('onRequest', async () => {
          if (!this.ctx.config.isModuleEnabled(key)) throw fail(Ret.moduleDisabled, 'moduleDisabled', { module: key });
        });
        if (instance) instance.routes(scope);
        else {
          // A module of the spec that this build does not have yet: say so plainly.
          scope.all(`/api/${key}/*`, async () => {
            throw fail(Ret.notAvailable, 'notAvailable');
          });
        }
      });
    }
  }

  /** Brings running modules in line with the enabled list. */
  sync(): Promise<void> {
    this.queue = this.queue.then(async () => {
      for (const [key, inst] of this.instances) {
        const want = this.ctx.config.isModuleEnabled(key);
        if (want && !this.running.has(key)) {
          this.running.add(key);
          await inst.start().catch((err: unknown) => this.log.error({ err, module: key }, 'module failed to start'));
          this.log.info({ module: key }, 'module started');
        } else if (!want && this.running.has(key)) {
          this.running.delete(key);
          await inst.stop().catch((err: unknown) => this.log.error({ err, module: key }, 'module failed to stop'));
          this.log.info({ module: key }, 'module stopped');
        }
      }
    });
    return this.queue;
  }

  /** Stops every engine and starts the enabled ones again from what is stored (after a restore). */
  async reload(): Promise<void> {
    await this.stopAll();
    await this.sync();
  }

  definitions(): readonly ModuleDef[] {
    return this.defs;
  }

  connections(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const key of this.running) out[key] = this.instances.get(key)!.connections();
    return out;
  }

  async stopAll(): Promise<void> {
    await this.queue;
    for (const key of [...this.running]) {
      this.running.delete(key);
      await this.instances.get(key)!.stop().catch(() => undefined);
    }
  }
}
