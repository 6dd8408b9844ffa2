/**
 * `rules`: any module's rules, made and changed by another module in the name of one of its objects
 * (a published service makes a DDNS task, a web rule, a certificate and a STUN rule). Every call
 * takes the module's own path, as its REST routes do (validation in the caller's language, secrets,
 * the module's checks, port claims, start), and each rule stays the user's to see and edit in its
 * module, marked with its owner. The kit never deletes a rule for its owner: the owning module
 * removes what it made, and finds absent what the user deleted meanwhile.
 */
import type { Lang, ModuleRule, ModuleRuleInput, RuleModuleKey, RuleOwner, RuleStatus } from '@lucky/contracts';

/** Which object of which module: an owner without the name it shows. */
export interface OwnerRef {
  module: string;
  key: string;
}

/** A rule as another module reads it: secrets masked as in the REST view (sent back masked, they keep their value). */
export interface ModuleRuleRead<M extends RuleModuleKey> {
  key: string;
  data: ModuleRule<M>;
}

export interface RulesService {
  /** A rule of a running module, with its owner and status (in `lang`, English when not given); undefined when absent. */
  get<M extends RuleModuleKey>(module: M, key: string, lang?: Lang): Promise<(ModuleRuleRead<M> & { owner: RuleOwner | null; status: RuleStatus }) | undefined>;
  /**
   * Creates a rule through the module's own path, owned by `owner`; returns its key. Throws AppError
   * (the module's message in `lang`: a port taken, a bad field) and creates nothing then.
   */
  create<M extends RuleModuleKey>(module: M, raw: ModuleRuleInput<M>, owner: RuleOwner, lang?: Lang): Promise<string>;
  /** Replaces a rule the same way; its owner is kept. Absent: AppError notFound. */
  update<M extends RuleModuleKey>(module: M, key: string, raw: ModuleRuleInput<M>, lang?: Lang): Promise<void>;
  /** Deletes it without the module's question (as `confirm=1`); an absent rule is no error. */
  remove(module: RuleModuleKey, key: string): Promise<void>;
  /** The rules `owner` holds in the module, in list order. */
  owned<M extends RuleModuleKey>(module: M, owner: OwnerRef): Promise<ModuleRuleRead<M>[]>;
  /** The owner's object was renamed: its rules in the module show `name`. Returns how many it holds there. */
  setOwnerName(module: RuleModuleKey, owner: OwnerRef, name: string): Promise<number>;
  /**
   * Calls `listener` when a rule of the module changes status (started, error, waiting, stopped or
   * disabled; in `lang`, English when not given), whether or not the module runs yet. A deleted
   * rule's last call says stopped. Returns the unsubscribe.
   */
  onStatus(module: RuleModuleKey, listener: (key: string, status: RuleStatus) => void, lang?: Lang): () => void;
}
