/**
 * Rule fields renamed since a release: rules saved before (in lucky.db, in a backup file) are read
 * with the new names. A rename moves a field only where the new name is not there yet, so applying
 * it twice (a backup restored into a database already upgraded) changes nothing more.
 */
import type { ModuleKey } from './modules.js';

export const RENAMED_RULE_FIELDS: Partial<Record<ModuleKey, Readonly<Record<string, string>>>> = {
  // A pasted certificate's private key: the rule view's own `key` (the rule's id) hid it.
  acme: { key: 'privateKey' },
};

/** A module's stored rule with its renamed fields under their new names; anything else as it was. */
export function upgradeRuleData(module: string, data: unknown): unknown {
  const renames = RENAMED_RULE_FIELDS[module as ModuleKey];
  if (!renames || !data || typeof data !== 'object' || Array.isArray(data)) return data;
  let out = data as Record<string, unknown>;
  for (const [from, to] of Object.entries(renames)) {
    if (!(from in out)) continue;
    const { [from]: value, ...rest } = out;
    out = to in rest ? rest : { ...rest, [to]: value };
  }
  return out;
}
