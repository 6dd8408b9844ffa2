/**
 * The `rules` service, offered by the module host: another module's rules through that module's
 * RuleOps, so that a rule made for a published service passes the very checks of the REST routes,
 * and nothing is stored when one refuses it.
 */
import { maskSecrets, Ret, type Lang, type ModuleContract } from '@lucky/contracts';
import { presentStatus } from './engine.js';
import { AppError } from './envelope.js';
import type { RuleOps } from './ruleops.js';
import type { RuleData } from './ruleruntime.js';
import type { StoredRule } from './rulestore.js';
import type { RulesService } from './services/index.js';

export type AnyRuleOps = RuleOps<ModuleContract, RuleData, unknown, unknown>;

/** Who listens to the rule statuses of which module; the host tells it each change its runtimes report. */
export class RuleStatusWatchers {
  private listeners = new Map<string, Set<(key: string, ops: AnyRuleOps) => void>>();

  add(module: string, listener: (key: string, ops: AnyRuleOps) => void): () => void {
    let set = this.listeners.get(module);
    if (!set) this.listeners.set(module, (set = new Set()));
    // A wrapper of its own: the same function added twice is two subscriptions, each removed once.
    const one = (key: string, ops: AnyRuleOps) => listener(key, ops);
    set.add(one);
    return () => void set.delete(one);
  }

  /** A rule of `module` changed status. A listener that throws is the runtime's to log. */
  changed(module: string, key: string, ops: AnyRuleOps): void {
    for (const l of [...(this.listeners.get(module) ?? [])]) l(key, ops);
  }
}

export interface RulesHost {
  /** The module's rule operations while it is switched on; AppError moduleDisabled when it is off. */
  running(module: string): Promise<AnyRuleOps>;
  /** Whether this build has the module. */
  has(module: string): boolean;
  watchers: RuleStatusWatchers;
}

export function rulesService(host: RulesHost): RulesService {
  const read = (ops: AnyRuleOps, r: StoredRule<RuleData>) => ({ key: r.key, data: maskSecrets(ops.contract.rule, r.data) });
  const statusOf = (ops: AnyRuleOps, key: string, lang: Lang) => {
    const r = ops.get(key);
    // A deleted rule reads as the runtime left it: stopped.
    return presentStatus(r ? ops.status(r) : ops.runtime.status(key), lang);
  };
  return {
    get: async (module, key, lang = 'en_US') => {
      const ops = await host.running(module);
      const r = ops.get(key);
      return r && ({ ...read(ops, r), owner: r.owner, status: statusOf(ops, key, lang) } as never);
    },
    create: async (module, raw, owner, lang = 'en_US') => (await host.running(module)).create(raw, lang, { owner }),
    update: async (module, key, raw, lang = 'en_US') => (await host.running(module)).update(key, raw, lang),
    remove: async (module, key) => {
      const ops = await host.running(module);
      // Deleted by the user meanwhile: what the caller wanted is done.
      if (ops.get(key)) await ops.remove(key, { confirm: true });
    },
    owned: async (module, owner) => {
      const ops = await host.running(module);
      return ops.owned(owner).map((r) => read(ops, r)) as never;
    },
    setOwnerName: async (module, owner, name) => (await host.running(module)).setOwnerName(owner, name),
    onStatus: (module, listener, lang = 'en_US') => {
      // A name this build lacks would never be called: a mistake, said at once.
      if (!host.has(module)) throw new AppError(Ret.notAvailable, 'notAvailable');
      return host.watchers.add(module, (key, ops) => listener(key, statusOf(ops, key, lang)));
    },
  };
}
