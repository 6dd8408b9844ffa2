/**
 * A module is declared once, with defineModule: its contract (schemas and routes, shared with the
 * console), its tables, the services it needs and provides, and its engine behind a loader. The
 * kit does the rest: the uniform rule routes, the lifecycle of every rule, secrets, logs, ports.
 */
import type { z } from 'zod';
import type { Lang, ModuleContract, ModuleKey, Msg, RouteDef, RuleRouteName } from '@lucky/contracts';
import type { AnyBackupPart } from './backupparts.js';
import type { BaseConfigStore } from './baseconfig.js';
import type { Db, Migration } from './db.js';
import type { Engine } from './engine.js';
import type { DaemonEnv } from './env.js';
import type { LoginGuard } from './loginguard.js';
import type { Logger, Say } from './logs.js';
import type { Metrics } from './metrics.js';
import type { Endpoint } from './ports.js';
import type { Handler } from './routes.js';
import type { RuleOps } from './ruleops.js';
import type { StoredRule } from './rulestore.js';
import type { ServiceMap, ServiceName } from './services/index.js';

export type RuleOf<C extends ModuleContract> = z.output<C['rule']>;
export type SettingsOf<C extends ModuleContract> = z.output<C['configure']>;
/** The module's own routes: those of its contract beyond the uniform rule routes. */
export type OwnRoutes<C extends ModuleContract> = Omit<C['routes'], RuleRouteName>;

type EngineOf<C extends ModuleContract> = Engine<RuleOf<C>, SettingsOf<C>, any>;
/** What the engine's handles report as figures. */
export type FiguresOf<E> = E extends Engine<any, any, infer F> ? F : unknown;

/** What a module is given once loaded. */
export interface ModuleContext<C extends ModuleContract = ModuleContract, N extends ServiceName = never, E = EngineOf<C>> {
  key: ModuleKey;
  db: Db;
  dataDir: string;
  /** Read-only use: the base settings (admin listener, enabled modules...). */
  config: BaseConfigStore;
  env: Readonly<DaemonEnv>;
  /** This daemon's version. */
  version: string;
  /** Program log lines a user reads (message keys). */
  say: Say;
  /** The program log for details only a developer reads (debug level). */
  log: Logger;
  /** The services declared in `needs`, ready to use. */
  services: Pick<ServiceMap, N>;
  /** This module's rules and settings: the same operations as its API. */
  rules: RuleOps<C, RuleOf<C> & { name: string; enable: boolean }, SettingsOf<C>, unknown>;
  /** The module's engine, imported now if no rule has started it yet. */
  engine(): Promise<E>;
  /** The console's login protection: services with their own logins (WebDAV, FTP) count failures in the same lock-out. */
  loginGuard: LoginGuard;
}

/** A rule as a module's metrics see it: its key, what is stored, and its engine's figures while it runs. */
export interface RuleFigures<R, F> {
  key: string;
  rule: R & { name: string; enable: boolean };
  figures: F | undefined;
}

export type OwnHandlers<C extends ModuleContract> = {
  [K in keyof OwnRoutes<C>]: OwnRoutes<C>[K] extends RouteDef ? Handler<OwnRoutes<C>[K]> : never;
};

export interface ModuleSpec<
  C extends ModuleContract = ModuleContract,
  N extends ServiceName = ServiceName,
  P extends ServiceName = ServiceName,
  E extends EngineOf<C> = EngineOf<C>,
> {
  key: ModuleKey;
  contract: C;
  /** Tables of its own beyond rules and settings (namespace = key, numbered from 1). */
  migrations?: Migration[];
  services?: {
    needs?: readonly N[];
    provides?: { [K in P]: (mod: ModuleContext<C, N, E>) => ServiceMap[K] | Promise<ServiceMap[K]> };
  };
  /** Imports and creates the engine; called when the first rule starts. */
  engine(mod: ModuleContext<C, N, E>): Promise<E>;
  /** Where a rule listens, from the rule alone: claimed before it starts, checked when it is saved. */
  listens?(rule: RuleOf<C>): Endpoint[];
  /** Checks and changes beyond the schema; throws AppError (nothing is saved). */
  prepare?(rule: RuleOf<C>, previous: RuleOf<C> | undefined, mod: ModuleContext<C, N, E>): Promise<RuleOf<C>> | RuleOf<C>;
  /** The list item's fields beyond the rule, in the reader's language. */
  view?(rule: StoredRule<RuleOf<C>>, figures: FiguresOf<E> | undefined, lang: Lang, mod: ModuleContext<C, N, E>): Record<string, unknown> | Promise<Record<string, unknown>>;
  /** "Run now" for a rule (actions service): wake the device, sync the task... */
  run?(rule: StoredRule<RuleOf<C>>, mod: ModuleContext<C, N, E>): Promise<Msg>;
  /**
   * Operations beyond "run now" that the `actions` service offers by name (a device's
   * "shutdown"): the same code path as the module's own route; a failure throws.
   */
  operations?: Record<string, (rule: StoredRule<RuleOf<C>>, mod: ModuleContext<C, N, E>) => Promise<Msg>>;
  /** Handlers of the contract's own routes, by route name. */
  routes?(mod: ModuleContext<C, N, E>): OwnHandlers<C>;
  /**
   * The module's series on a scrape of /metrics (docs/METRICS.md), from the figures its engine keeps
   * anyway: nothing may be counted per request for them. Labelled by rule key, never by what traffic
   * brings (paths, client addresses). The kit adds what every module has (rule info, state).
   */
  metrics?(rules: RuleFigures<RuleOf<C>, FiguresOf<E>>[], m: Metrics, mod: ModuleContext<C, N, E>): void | Promise<void>;
  /** The rule was deleted: drop what the module keeps beside it. */
  removed?(key: string, mod: ModuleContext<C, N, E>): void;
  /**
   * The user switched the rule on or off (not a restart or the daemon closing), once it started or
   * stopped: a published service switches the parts that carry traffic with it.
   */
  switched?(key: string, enable: boolean, mod: ModuleContext<C, N, E>): void;
  /**
   * A new rule that cannot start is not kept: the create fails with why, and nothing of it stays (a
   * published service whose parts cannot be made undoes them in its start).
   */
  startsOrRefuses?: boolean;
  /** A store of its own beside the rules that backups with secrets carry (named in its table entry's `keeps`). */
  backup?(mod: ModuleContext<C, N, E>): AnyBackupPart;
  /**
   * Before a delete that was not confirmed: a message that asks for confirmation (a storage a
   * service still serves), or null to delete at once. A confirmed delete does not ask.
   */
  guardRemove?(rule: StoredRule<RuleOf<C>>, mod: ModuleContext<C, N, E>): Msg | null | Promise<Msg | null>;
}

/** Declares a module; the types follow from its contract and the services it names. */
export function defineModule<
  const C extends ModuleContract,
  const N extends ServiceName = never,
  const P extends ServiceName = never,
  E extends EngineOf<C> = EngineOf<C>,
>(spec: ModuleSpec<C, N, P, E>): ModuleSpec<C, N, P, E> {
  return spec;
}

/** A module as the host sees it, its types erased. */
export type AnyModule = Omit<ModuleSpec<ModuleContract, never, never, Engine<any, any, any>>, 'services' | 'operations'> & {
  services?: { needs?: readonly ServiceName[]; provides?: Partial<Record<ServiceName, (mod: any) => unknown>> };
  operations?: Record<string, (rule: any, mod: any) => Promise<Msg>>;
};
