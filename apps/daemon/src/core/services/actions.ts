/**
 * `actions`: every module's rules, listed and driven the same way (switch on, switch off, run now),
 * so that scheduled tasks can act on any module without its code. Each
 * action takes the same path as the module's own API (validation, port checks, logs).
 */
import type { Lang, Msg, RuleStatus } from '@lucky/contracts';

export interface ActionRule {
  key: string;
  name: string;
  enable: boolean;
  status: RuleStatus;
  /** The module offers "run now" for this rule (wake a device, sync a DNS task...). */
  canRun: boolean;
  /** Further operations the module offers by name, beyond "run now" ("shutdown" for a WOL device). */
  operations: string[];
}

export interface ActionsService {
  /** Modules whose rules can be driven: the enabled ones. */
  modules(): string[];
  /** The module's rules, statuses in `lang` (English when not given). */
  rules(module: string, lang?: Lang): Promise<ActionRule[]>;
  setEnabled(module: string, key: string, enable: boolean): Promise<void>;
  /**
   * Runs the module's "run now" for the rule, or, with `operation`, one of the operations it
   * offers by name; the message says what it did, a failure throws (an AppError with its message).
   */
  run(module: string, key: string, operation?: string): Promise<Msg>;
}
