/**
 * What every rule-based module shares: the store, the engine lifecycle and the uniform REST routes.
 * A module supplies its schemas, its engine and, if it likes, extra fields for the list view.
 */
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { Ret, type Lang, type RuleInputShape, type ruleRoutes } from '@lucky/contracts';
import { presentStatus, RuleLogs, type EngineStatus, type RuleEngine } from './engine.js';
import { fail } from './envelope.js';
import type { Logger } from './logs.js';
import { addRoute } from './routes.js';
import type { RuleStore, SettingsStore, StoredRule } from './rulestore.js';

export interface RuleModuleOptions<I extends RuleInputShape, C extends z.ZodType> {
  store: RuleStore<I>;
  settings: SettingsStore<C>;
  engine: RuleEngine<z.output<I>>;
  log: Logger;
  logs?: RuleLogs;
  /**
   * Extra fields of the list view (figures, last results), texts in the caller's language. May be a
   * promise: the web engine's figures come from its serving threads.
   */
  extra?: (rule: StoredRule<z.output<I>>, lang: Lang) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /** Turns a validated input into what is stored (hash passwords; keep secrets sent back masked). */
  prepare?: (input: z.output<I>, previous: z.output<I> | undefined) => Promise<z.output<I>> | z.output<I>;
  /** What a stored rule shows in answers (hide hashes and secrets). */
  present?: (data: z.output<I>) => z.output<I>;
  /** Called after module settings change, e.g. to re-apply global limits. */
  onSettings?: (next: z.output<C>) => Promise<void> | void;
  /** Module settings as GET shows them (secrets masked). */
  settingsView?: (stored: z.output<C>) => z.output<C>;
  /** A PUT merged with what is stored (a mask sent back keeps the stored secret). */
  settingsMerge?: (incoming: z.output<C>, stored: z.output<C>) => z.output<C>;
}

export class RuleModule<I extends RuleInputShape, C extends z.ZodType> {
  readonly logs: RuleLogs;
  readonly store: RuleStore<I>;
  readonly settings: SettingsStore<C>;
  readonly engine: RuleEngine<z.output<I>>;

  constructor(private opts: RuleModuleOptions<I, C>) {
    this.logs = opts.logs ?? new RuleLogs();
    this.store = opts.store;
    this.settings = opts.settings;
    this.engine = opts.engine;
  }

  async startAll(): Promise<void> {
    await Promise.all(this.store.list().filter((r) => r.data.enable).map((r) => this.engine.start(r.key, r.data)));
  }

  async stopAll(): Promise<void> {
    await this.engine.close();
  }

  statusOf(rule: StoredRule<z.output<I>>): EngineStatus {
    if (!rule.data.enable) return { state: 'disabled', message: '', since: rule.updated };
    return this.engine.status(rule.key);
  }

  async view(rule: StoredRule<z.output<I>>, lang: Lang = 'en_US') {
    return {
      ...(this.opts.present ? this.opts.present(rule.data) : rule.data),
      key: rule.key,
      status: presentStatus(this.statusOf(rule), lang),
      created: rule.created,
      updated: rule.updated,
      ...(await this.opts.extra?.(rule, lang)),
    };
  }

  require(key: string): StoredRule<z.output<I>> {
    const rule = this.store.get(key);
    if (!rule) throw fail(Ret.notFound, 'ruleNotFound');
    return rule;
  }

  private async apply(key: string, data: z.output<I>): Promise<void> {
    if (data.enable) await this.engine.start(key, data);
    else await this.engine.stop(key);
  }

  async create(input: z.output<I>): Promise<string> {
    const key = this.store.create(this.opts.prepare ? await this.opts.prepare(input, undefined) : input);
    this.opts.log.info({ key, name: input.name }, 'rule created');
    await this.apply(key, this.store.get(key)!.data);
    return key;
  }

  async update(key: string, input: z.output<I>): Promise<void> {
    const previous = this.require(key).data;
    this.store.update(key, this.opts.prepare ? await this.opts.prepare(input, previous) : input);
    this.opts.log.info({ key, name: input.name }, 'rule saved');
    await this.apply(key, this.store.get(key)!.data);
  }

  async remove(key: string): Promise<void> {
    this.require(key);
    await this.engine.stop(key);
    this.store.remove(key);
    this.logs.drop(key);
    this.opts.log.info({ key }, 'rule deleted');
  }

  async enable(key: string, enable: boolean): Promise<void> {
    const rule = this.require(key);
    const data = { ...rule.data, enable };
    this.store.update(key, data);
    this.opts.log.info({ key, name: rule.data.name, enable }, enable ? 'rule enabled' : 'rule disabled');
    await this.apply(key, this.store.get(key)!.data);
  }

  /** The uniform routes; `routes` comes from the contracts' ruleRoutes() for this module. */
  register(app: FastifyInstance, routes: ReturnType<typeof ruleRoutes<string, I, z.ZodType, C>>): void {
    addRoute(app, routes.list, async ({ req }) => ({ list: await Promise.all(this.store.list().map((r) => this.view(r, req.lang))) }) as never);
    addRoute(app, routes.create, async ({ body }) => ({ key: await this.create(body as z.output<I>) }));
    addRoute(app, routes.get, async ({ params, req }) => ({ rule: await this.view(this.require(params.key), req.lang) }) as never);
    addRoute(app, routes.update, async ({ params, body }) => {
      await this.update(params.key, body as z.output<I>);
      return {};
    });
    addRoute(app, routes.remove, async ({ params }) => {
      await this.remove(params.key);
      return {};
    });
    addRoute(app, routes.enable, async ({ params, body }) => {
      await this.enable(params.key, body.enable);
      return {};
    });
    addRoute(app, routes.logs, ({ params, query }) => {
      this.require(params.key);
      return { logs: this.logs.since(params.key, query.pre) };
    });
    addRoute(app, routes.getConfigure, () => {
      const stored = this.settings.get();
      return { configure: this.opts.settingsView ? this.opts.settingsView(stored) : stored } as never;
    });
    addRoute(app, routes.putConfigure, async ({ body }) => {
      const incoming = body as z.output<C>;
      const next = this.settings.set(this.opts.settingsMerge ? this.opts.settingsMerge(incoming, this.settings.get()) : incoming);
      await this.opts.onSettings?.(next);
      return {};
    });
  }
}
