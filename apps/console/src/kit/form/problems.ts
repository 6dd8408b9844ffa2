/**
 * A form's problems as the user reads them: the contracts' schema checks the value the form would
 * send, and each failing field gets a message naming it (spec section 5: "X cannot be empty").
 */
import { MESSAGES, formatIssues, msgKey, type Lang, type MessageKey } from '@lucky/contracts';
import type { TextVars } from '../../i18n';
import type { KitTextId } from '../texts';

/** A contracts schema (zod itself is the contracts' dependency, not the console's). */
export type Schema = Parameters<typeof formatIssues>[0];

/** What the checks read of a schema issue. */
export interface SchemaIssue {
  code: string;
  path: PropertyKey[];
  message: string;
  minimum?: unknown;
  maximum?: unknown;
  origin?: unknown;
}

export interface FormProblem {
  /** Dotted, entries' numbers included: `port`, `subRules.0.domains`, `targets.2`. */
  path: string;
  /** The field it is shown on: the path's names only (`targets`, `filter.list`). */
  field: string;
  /** Names the field, for the alert under the form. */
  message: string;
  /** What the field itself shows. */
  inline: string;
  /** `formatIssues`: the daemon's own one line about the first issue ("参数 domains 错误：不能为空"). */
  summary: string;
}

export interface ProblemWording {
  lang: Lang;
  text: (id: Extract<KitTextId, `err.${string}`>, vars?: TextVars) => string;
  /** The field's name in messages. */
  label: (path: readonly PropertyKey[]) => string;
  /** The entry's index inside a list field; the first number of the path unless said otherwise. */
  row?: (path: readonly PropertyKey[]) => number | undefined;
  /** A module's own message for an issue; undefined for the common wording. */
  own?: (issue: SchemaIssue, at: { label: string; row: number | undefined; detail: string }) => string | undefined;
  /** The field shows the message without its own name (it stands right above). */
  shortInline?: boolean;
}

const fieldOf = (path: readonly PropertyKey[]) => path.filter((x): x is string => typeof x === 'string').join('.');

/**
 * The usual wording of a module's form: a field is named by the module's `field.<path>` text when it
 * is one of `fields`, by its path otherwise, and shown without its name inline.
 */
export function fieldWording<Id extends string>(inLang: Lang, text: (id: Id, vars?: TextVars) => string, fields: readonly string[]): ProblemWording {
  const known = new Set(fields);
  return {
    lang: inLang,
    text: text as unknown as ProblemWording['text'],
    label: (path) => {
      const field = fieldOf(path);
      return known.has(field) ? text(`field.${field}` as Id) : field;
    },
    shortInline: true,
  };
}
const firstNumber = (path: readonly PropertyKey[]) => path.find((x): x is number => typeof x === 'number');

/** A required field or list left empty (a list entry's own minimum is not emptiness). */
export function isEmptyIssue(issue: SchemaIssue, row: number | undefined): boolean {
  return issue.message === msgKey('cannotBeEmpty') || (issue.code === 'too_small' && issue.minimum === 1 && row === undefined);
}

/** Bounds and non-numbers for issues after the first (formatIssues describes only the first). */
function genericDetail(issue: SchemaIssue, lang: Lang): string {
  const zh = lang === 'zh_CN';
  if (issue.code === 'too_small' && issue.minimum !== undefined) return zh ? `不能小于 ${String(issue.minimum)}` : `must be at least ${String(issue.minimum)}`;
  if (issue.code === 'too_big' && issue.maximum !== undefined) return zh ? `不能大于 ${String(issue.maximum)}` : `must be at most ${String(issue.maximum)}`;
  return zh ? '格式不正确' : 'is not valid';
}

/** Every problem of `value`, the first of each field, in the schema's order; empty when valid. */
export function schemaProblems(schema: Schema, value: unknown, w: ProblemWording): FormProblem[] {
  const r = schema.safeParse(value);
  if (r.success) return [];
  const summary = formatIssues(schema, value, w.lang);
  const seen = new Set<string>();
  const out: FormProblem[] = [];
  (r.error.issues as SchemaIssue[]).forEach((issue, i) => {
    const field = fieldOf(issue.path);
    if (seen.has(field)) return;
    seen.add(field);
    const label = w.label(issue.path);
    const row = w.row ? w.row(issue.path) : firstNumber(issue.path);
    let detail = issue.message;
    if (detail.startsWith('@msg:')) detail = MESSAGES[w.lang][detail.slice(5) as MessageKey] ?? detail;
    // zod's own texts come translated through formatIssues, which describes the first issue only.
    else detail = i === 0 ? summary.replace(/^[^:：]*[:：]\s*/, '') : genericDetail(issue, w.lang);
    const own = w.own?.(issue, { label, row, detail });
    let message: string;
    let inline: string | undefined;
    if (own !== undefined) message = own;
    else if (isEmptyIssue(issue, row)) message = w.text('err.empty', { field: label });
    else {
      message = row !== undefined ? w.text('err.row', { field: label, n: row + 1, detail }) : w.text('err.field', { field: label, detail });
      if (w.shortInline) inline = row !== undefined ? w.text('err.rowInline', { n: row + 1, detail }) : detail;
    }
    out.push({ path: issue.path.map(String).join('.'), field, message, inline: inline ?? message, summary });
  });
  return out;
}

/** The first problem alone, for forms that say one thing at a time. */
export function firstProblem(schema: Schema, value: unknown, w: ProblemWording): FormProblem[] {
  return schemaProblems(schema, value, w).slice(0, 1);
}

/** A field's message: "targets.2" is shown on "targets", "webhook.proxy.address" on "webhook.proxy". */
export function errorFor(problems: readonly FormProblem[], field: string): string | undefined {
  return problems.find((p) => p.path === field || p.path.startsWith(field + '.'))?.inline;
}
