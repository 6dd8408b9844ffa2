/**
 * What is done to several devices at once, and what compares them: a rule pushed to each (a rule
 * of the same name there is replaced), one module's rules of two devices side by side, versions.
 * Each device runs on its own: one that fails or does not answer is its own result, never the others'.
 */
import { MODULE_CONTRACTS, Ret, ZWanjiRemoteRule, type ModuleContract, type ModuleKey, type Msg, type WanjiCompareRow, type WanjiRemoteRule } from '@lucky/contracts';
import { fail } from '../../core/envelope.js';
import { MsgError } from '../../lib/msgerror.js';
import type { Remote } from './wanji.remote.js';

/** The module's contract, for a module that has rules. */
export function contractOf(module: ModuleKey): ModuleContract {
  const c = MODULE_CONTRACTS[module];
  if (!c) throw fail(Ret.notFound, 'wanjiNoRuleList', { module });
  return c;
}

const ZRemoteItem = ZWanjiRemoteRule.omit({ rule: true });

/** A device's list item as the drill-down shows it: the kit's fields, and the rule's input fields. */
export function remoteRule(c: ModuleContract, item: unknown): WanjiRemoteRule | null {
  const base = ZRemoteItem.safeParse(item);
  if (!base.success) return null;
  const fields = Object.keys(c.rule.shape);
  const rule = Object.fromEntries(Object.entries(item as Record<string, unknown>).filter(([k]) => fields.includes(k)));
  return { ...base.data, rule };
}

/** The device's rules of a module, read now. */
export async function remoteRules(remote: Remote, c: ModuleContract): Promise<WanjiRemoteRule[]> {
  const env = await remote.envelope(c.routes.list, {});
  return (Array.isArray(env.list) ? env.list : []).flatMap((item) => remoteRule(c, item) ?? []);
}

/** Creates the rule on the device, or replaces the one of the same name there; says which and its key. */
export async function pushRule(remote: Remote, c: ModuleContract, rule: Record<string, unknown>): Promise<{ key: string; line: Msg }> {
  const same = (await remoteRules(remote, c)).find((r) => r.name === rule.name);
  if (same) {
    await remote.call(c.routes.update, { params: { key: same.key }, body: rule } as never);
    return { key: same.key, line: { key: 'wanjiPushReplaced' } };
  }
  const created = (await remote.call(c.routes.create, { body: rule } as never)) as { key: string };
  return { key: created.key, line: { key: 'wanjiPushCreated' } };
}

/** A value written the same way whatever the order of its keys. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : x,
  );
}

/** Rules of two devices matched by name: the same, different (which fields), or on one side only. */
export function compareRules(a: readonly WanjiRemoteRule[], b: readonly WanjiRemoteRule[]): WanjiCompareRow[] {
  const names = [...new Set([...a.map((r) => r.name), ...b.map((r) => r.name)])].sort((x, y) => x.localeCompare(y));
  return names.map((name) => {
    const ra = a.find((r) => r.name === name)?.rule ?? null;
    const rb = b.find((r) => r.name === name)?.rule ?? null;
    if (!ra || !rb) return { name, state: ra ? 'onlyA' : 'onlyB', fields: [], a: ra, b: rb };
    const fields = [...new Set([...Object.keys(ra), ...Object.keys(rb)])].filter((f) => canonical(ra[f]) !== canonical(rb[f])).sort();
    return { name, state: fields.length ? 'different' : 'same', fields, a: ra, b: rb };
  });
}

/**
 * Runs `fn` for every item, at most `limit` at a time, each given a signal that ends at `deadlineMs`
 * after the start; an item not started by then is never started (`late` gives its result).
 */
export async function eachBounded<T, R>(items: readonly T[], limit: number, deadlineMs: number, fn: (item: T, signal: AbortSignal) => Promise<R>, late: (item: T) => R): Promise<R[]> {
  const out: R[] = new Array(items.length);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new MsgError({ key: 'wanjiDeadline', vars: { seconds: deadlineMs / 1000 } })), deadlineMs);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = deadline.signal.aborted ? late(items[i]!) : await fn(items[i]!, deadline.signal);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  } finally {
    clearTimeout(timer);
  }
  return out;
}
