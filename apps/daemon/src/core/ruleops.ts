/**
 * What can be done to a module's rules and settings, written once: the uniform routes and the
 * `actions` service both come here, so a rule switched by a scheduled task goes through the same
 * checks as one switched in the console. A write that is refused changes nothing: secrets are put
 * back, the rule is validated, hashed, checked by the module and admitted by the port registry
 * before anything is stored.
 */
import type { z } from 'zod';
import { maskSecrets, restoreSecrets, Ret, ZRuleOwner, type Lang, type ModuleContract, type Msg, type RuleOwner } from '@lucky/contracts';
import { presentStatus, statusOf, type EngineStatus } from './engine.js';
import { AppError, fail } from './envelope.js';
import type { Say } from './logs.js';
import { moduleName, PortConflict } from './ports.js';
import { parseOrFail } from './routes.js';
import type { RuleLog } from './rulelog.js';
import type { RuleData, RuleRuntime } from './ruleruntime.js';
import type { RuleStore, SettingsStore, StoredRule } from './rulestore.js';
import { hashSecrets } from './secrets.js';

export interface RuleHooks<R, F> {
  /** Checks and changes beyond the schema (a certificate that must match its key); throws AppError. */
  prepare?(rule: R, previous: R | undefined): Promise<R> | R;
  /** Fields of the list item beyond the rule itself, in the reader's language. */
  view?(rule: StoredRule<R>, figures: F | undefined, lang: Lang): Record<string, unknown> | Promise<Record<string, unknown>>;
  /** The rule is deleted: drop what the module keeps beside it. */
  removed?(key: string): void;
  /** The user switched the rule on or off (its switch, or a save that changed it): after it started or stopped. */
  switched?(key: string, enable: boolean): void;
  /** Why a delete needs confirming (a storage in use), or null. */
  guardRemove?(rule: StoredRule<R>): Msg | null | Promise<Msg | null>;
  /** A new rule that cannot start is not kept: its create fails with why (the module's `startsOrRefuses`). */
  mustStart?: boolean;
}

export class RuleOps<C extends ModuleContract, R extends RuleData & z.output<C['rule']>, S extends z.output<C['configure']>, F> {
  constructor(
    private o: {
      module: string;
      contract: C;
      store: RuleStore<C['rule']>;
      settings: SettingsStore<C['configure']>;
      runtime: RuleRuntime<R, S, F>;
      logs: RuleLog;
      say: Say;
      hooks: RuleHooks<R, F>;
    },
  ) {}

  get contract(): C {
    return this.o.contract;
  }

  get logs(): RuleLog {
    return this.o.logs;
  }

  get runtime(): RuleRuntime<R, S, F> {
    return this.o.runtime;
  }

  list(): StoredRule<R>[] {
    return this.o.store.list() as StoredRule<R>[];
  }

  get(key: string): StoredRule<R> | undefined {
    return this.o.store.get(key) as StoredRule<R> | undefined;
  }

  /** The rules made here for one object of another module (a published service). */
  owned(owner: { module: string; key: string }): StoredRule<R>[] {
    return this.o.store.owned(owner.module, owner.key) as StoredRule<R>[];
  }

  /** The owner's object was renamed: its rules here show the new name. Returns how many it holds. */
  setOwnerName(owner: { module: string; key: string }, name: string): number {
    return this.o.store.setOwnerName(owner.module, owner.key, name);
  }

  require(key: string): StoredRule<R> {
    const rule = this.get(key);
    if (!rule) throw fail(Ret.notFound, 'ruleNotFound');
    return rule;
  }

  status(rule: StoredRule<R>): EngineStatus {
    return rule.data.enable ? this.o.runtime.status(rule.key) : statusOf('disabled', rule.updated, []);
  }

  async view(rule: StoredRule<R>, lang: Lang): Promise<Record<string, unknown>> {
    return {
      ...maskSecrets(this.o.contract.rule, rule.data),
      key: rule.key,
      status: presentStatus(this.status(rule), lang),
      created: rule.created,
      updated: rule.updated,
      owner: rule.owner,
      ...(await this.o.hooks.view?.(rule, await this.o.runtime.figures(rule.key), lang)),
    };
  }

  /** A body as sent → the rule to store: masks put back, validated, hashed, checked, admitted. */
  private async accept(raw: unknown, key: string | undefined, previous: R | undefined, lang: Lang): Promise<R> {
    const schema = this.o.contract.rule;
    let rule = parseOrFail(schema, restoreSecrets(schema, raw, previous), lang) as R;
    rule = await hashSecrets(schema, rule, previous);
    if (this.o.hooks.prepare) rule = await this.o.hooks.prepare(rule, previous);
    this.admitOrFail(key ?? '', rule);
    return rule;
  }

  private say(line: 'ruleCreated' | 'ruleSaved' | 'ruleDeleted' | 'ruleEnabled' | 'ruleDisabled', key: string, name: string): void {
    this.o.say.info({ key: line, vars: { module: moduleName(this.o.module), name } }, { rule: key });
  }

  /** A new rule; `owner` when another module's object makes it (through the `rules` service). */
  async create(raw: unknown, lang: Lang, opts: { owner?: RuleOwner } = {}): Promise<string> {
    // A bad owner is the calling module's mistake, found before the module's prepare runs.
    const owner = opts.owner ? ZRuleOwner.parse(opts.owner) : null;
    const rule = await this.accept(raw, undefined, undefined, lang);
    const key = this.o.store.create(rule, owner);
    this.say('ruleCreated', key, rule.name);
    await this.o.runtime.apply(key);
    const started = this.o.runtime.status(key);
    if (this.o.hooks.mustStart && rule.enable && started.state === 'error') {
      // Its start undid what it had made; the rule goes too, and the caller hears why.
      this.o.store.remove(key);
      await this.o.runtime.apply(key);
      this.o.logs.drop(key);
      this.o.hooks.removed?.(key);
      const why = started.parts?.[0] ?? { key: 'statusApplyFailed' as const, vars: { detail: started.message } };
      throw new AppError(Ret.failed, why.key, why.vars ?? {});
    }
    return key;
  }

  async update(key: string, raw: unknown, lang: Lang): Promise<void> {
    const previous = this.get(key)?.data;
    // A bad body is a bad request whether or not the rule exists.
    const rule = await this.accept(raw, key, previous, lang);
    if (!previous) throw fail(Ret.notFound, 'ruleNotFound');
    this.o.store.update(key, rule);
    this.say('ruleSaved', key, rule.name);
    await this.o.runtime.apply(key);
    if (previous.enable !== rule.enable) this.o.hooks.switched?.(key, rule.enable);
  }

  /** Stores a rule the module changed itself (already valid, e.g. a domain replaced in bulk). */
  async replace(key: string, rule: R): Promise<void> {
    this.admitOrFail(key, rule);
    this.o.store.update(key, rule);
    this.say('ruleSaved', key, rule.name);
    await this.o.runtime.apply(key);
  }

  private admitOrFail(key: string, rule: R): void {
    try {
      this.o.runtime.admit(key, rule);
    } catch (err) {
      if (err instanceof PortConflict) throw fail(Ret.failed, 'notSavedPortTaken', { detail: err.msg });
      throw err;
    }
  }

  /** Deletes a rule; one the module asks to confirm is refused (Ret.failed, its message) unless `confirm`. */
  async remove(key: string, opts: { confirm?: boolean } = {}): Promise<void> {
    const rule = this.require(key);
    if (!opts.confirm && this.o.hooks.guardRemove) {
      const ask = await this.o.hooks.guardRemove(rule);
      if (ask) throw fail(Ret.failed, ask.key, ask.vars);
    }
    this.o.store.remove(key);
    await this.o.runtime.apply(key);
    this.o.logs.drop(key);
    this.o.hooks.removed?.(key);
    this.say('ruleDeleted', key, rule.data.name);
  }

  async enable(key: string, enable: boolean): Promise<void> {
    const rule = this.require(key);
    const next = { ...rule.data, enable };
    if (enable) this.admitOrFail(key, next);
    this.o.store.update(key, next);
    this.say(enable ? 'ruleEnabled' : 'ruleDisabled', key, rule.data.name);
    await this.o.runtime.apply(key);
    if (rule.data.enable !== enable) this.o.hooks.switched?.(key, enable);
  }

  settingsView(): z.output<C['configure']> {
    return maskSecrets(this.o.contract.configure, this.o.settings.get());
  }

  settings(): S {
    return this.o.settings.get() as S;
  }

  async putSettings(raw: unknown, lang: Lang): Promise<void> {
    const schema = this.o.contract.configure;
    const stored = this.o.settings.get();
    const next = await hashSecrets(schema, parseOrFail(schema, restoreSecrets(schema, raw, stored), lang), stored);
    const saved = this.o.settings.set(next as z.output<C['configure']>) as S;
    await this.o.runtime.configure(saved);
  }
}
