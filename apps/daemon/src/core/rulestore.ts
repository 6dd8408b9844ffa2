/**
 * Rules of every module live in one table, one JSON document a row, validated by the module's
 * contract schema on the way in and on the way out. Module settings likewise, one row a module.
 */
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { upgradeRuleData, ZRuleOwner, type RuleOwner } from '@lucky/contracts';
import type Database from 'better-sqlite3';
import type { Db } from './db.js';
import { sayer, type Logger } from './logs.js';

export interface StoredRule<T> {
  key: string;
  data: T;
  created: number;
  updated: number;
  /** The other module's object this rule was made for (a published service); null when the user made it here. */
  owner: RuleOwner | null;
}

interface Row {
  key: string;
  data: string;
  created_at: number;
  updated_at: number;
  owner: string | null;
}

const COLUMNS = 'key, data, created_at, updated_at, owner';

/**
 * A stored owner as the kit reads it: null when there is none, or when the text is not one (a row
 * edited by hand): the rule itself is still the module's, and shown as the user's own.
 */
export function parseOwner(text: string | null): RuleOwner | null {
  if (text === null) return null;
  try {
    const r = ZRuleOwner.safeParse(JSON.parse(text));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

const KEY_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
export function newKey(length = 16): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const b of bytes) out += KEY_ALPHABET[b % KEY_ALPHABET.length];
  return out;
}

/**
 * Frozen so a cached decode is never changed behind the store's back: a caller that wants to change
 * a rule builds a new object (as the kit's update does) and writes it.
 */
function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

/**
 * The last decode of each row, keyed by its stored text: services read a rule or the settings on
 * every request (a WebDAV GET reads its storage and the storage users), and validating the same
 * text again each time was a tenth of a small GET's cost. A changed row is a different text, so a
 * write is seen at the next read whoever made it (the API, a restored backup).
 */
class DecodeCache<T> {
  private last = new Map<string, { text: string; value: T }>();

  get(id: string, text: string, decode: () => T): T {
    const hit = this.last.get(id);
    if (hit && hit.text === text) return hit.value;
    // A copy: zod shares nested default objects between parses, and those must not be frozen.
    const value = deepFreeze(structuredClone(decode()));
    // Bounded by the rows of one module; a removed row's entry is dropped at the next clear.
    if (this.last.size > 10_000) this.last.clear();
    this.last.set(id, { text, value });
    return value;
  }
}

/**
 * A migration's step: the module's saved rules with their renamed fields under the new names
 * (`RENAMED_RULE_FIELDS`). Rows that need nothing are left untouched; returns how many changed.
 */
export function upgradeStoredRules(db: Db, module: string): number {
  const rows = db.prepare<[string], { key: string; data: string }>('SELECT key, data FROM rules WHERE module = ?').all(module);
  const write = db.prepare('UPDATE rules SET data = ? WHERE module = ? AND key = ?');
  let changed = 0;
  for (const row of rows) {
    let raw: unknown;
    try {
      raw = JSON.parse(row.data);
    } catch {
      continue; // Left as it is: the store says so when it reads the row.
    }
    const next = upgradeRuleData(module, raw);
    if (next === raw) continue;
    write.run(JSON.stringify(next), module, row.key);
    changed++;
  }
  return changed;
}

export class RuleStore<S extends z.ZodType> {
  constructor(
    private db: Db,
    readonly module: string,
    private schema: S,
    private log: Logger,
  ) {}

  private decode(row: Row): StoredRule<z.output<S>> | undefined {
    let raw: unknown;
    try {
      raw = JSON.parse(row.data);
    } catch {
      raw = undefined;
    }
    const r = this.schema.safeParse(raw);
    if (!r.success) {
      // A row that no longer validates is left in place (nothing is lost) and skipped.
      sayer(this.log).error({ key: 'logStoredRuleInvalid', vars: { module: this.module, key: row.key, issue: r.error.issues[0]?.message ?? '' } });
      return undefined;
    }
    return { key: row.key, data: r.data, created: row.created_at, updated: row.updated_at, owner: parseOwner(row.owner) };
  }

  list(): StoredRule<z.output<S>>[] {
    return this.rows(this.db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM rules WHERE module = ? ORDER BY position, created_at`).all(this.module));
  }

  /** The rules made for one object of another module (a published service's), in list order. */
  owned(ownerModule: string, ownerKey: string): StoredRule<z.output<S>>[] {
    // Matched here rather than with SQLite's json_extract, which throws on a row whose owner is not JSON.
    return this.rows(this.ownedRows(ownerModule, ownerKey));
  }

  private ownedRows(ownerModule: string, ownerKey: string): Row[] {
    return this.db
      .prepare<[string], Row>(`SELECT ${COLUMNS} FROM rules WHERE module = ? AND owner IS NOT NULL ORDER BY position, created_at`)
      .all(this.module)
      .filter((r) => {
        const o = parseOwner(r.owner);
        return o?.module === ownerModule && o.key === ownerKey;
      });
  }

  private rows(rows: Row[]): StoredRule<z.output<S>>[] {
    return rows.map((r) => this.decode(r)).filter((r): r is StoredRule<z.output<S>> => r !== undefined);
  }

  private decoded = new DecodeCache<StoredRule<z.output<S>> | undefined>();
  /** Owners by rule, as the rules: a service reading its rule on every request parses no JSON for it. */
  private owners = new DecodeCache<RuleOwner | null>();

  /** Prepared once: services ask for a rule on every request (a WebDAV GET asks for its storage). */
  private getOne?: Database.Statement<[string, string], Row>;

  get(key: string): StoredRule<z.output<S>> | undefined {
    this.getOne ??= this.db.prepare<[string, string], Row>(`SELECT ${COLUMNS} FROM rules WHERE module = ? AND key = ?`);
    const row = this.getOne.get(this.module, key);
    if (!row) return undefined;
    const rule = this.decoded.get(row.key, row.data, () => this.decode(row));
    // The times and the owner change without the text (an update that saved the same rule, an
    // owner renamed): they are not cached with it.
    const owner = row.owner === null ? null : this.owners.get(row.key, row.owner, () => parseOwner(row.owner));
    return rule && { ...rule, created: row.created_at, updated: row.updated_at, owner };
  }

  private encode(data: z.input<S> | z.output<S>): string {
    return JSON.stringify(this.schema.parse(data));
  }

  /** Stores a new rule, made for `owner` when another module's object asked for it. */
  create(data: z.input<S> | z.output<S>, owner?: RuleOwner | null): string {
    const json = this.encode(data);
    const ownerJson = owner ? JSON.stringify(ZRuleOwner.parse(owner)) : null;
    const key = newKey();
    const t = Date.now();
    const pos = this.db
      .prepare<[string], { p: number | null }>('SELECT MAX(position) AS p FROM rules WHERE module = ?')
      .get(this.module)!.p;
    this.db
      .prepare('INSERT INTO rules (module, key, position, data, created_at, updated_at, owner) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(this.module, key, (pos ?? 0) + 1, json, t, t, ownerJson);
    return key;
  }

  /**
   * Renames an owner on its rules here (the published service was renamed): only what the console
   * shows changes, not the rules, so their times stay. Returns how many rules it held.
   */
  setOwnerName(ownerModule: string, ownerKey: string, name: string): number {
    const owner = JSON.stringify(ZRuleOwner.parse({ module: ownerModule, key: ownerKey, name }));
    const write = this.db.prepare('UPDATE rules SET owner = ? WHERE module = ? AND key = ?');
    return this.db.transaction(() => this.ownedRows(ownerModule, ownerKey).filter((r) => write.run(owner, this.module, r.key).changes > 0).length)();
  }

  /** Returns false when the rule does not exist; the owner stays as it was. */
  update(key: string, data: z.input<S> | z.output<S>): boolean {
    const json = this.encode(data);
    return (
      this.db
        .prepare('UPDATE rules SET data = ?, updated_at = ? WHERE module = ? AND key = ?')
        .run(json, Date.now(), this.module, key).changes > 0
    );
  }

  remove(key: string): boolean {
    return this.db.prepare('DELETE FROM rules WHERE module = ? AND key = ?').run(this.module, key).changes > 0;
  }
}

export class SettingsStore<S extends z.ZodType> {
  constructor(
    private db: Db,
    readonly module: string,
    private schema: S,
    /** Settings saved by an earlier version, brought up to date before they are validated. */
    private upgrade: (stored: unknown) => unknown = (stored) => stored,
  ) {}

  private decoded = new DecodeCache<z.output<S>>();

  /** Prepared once, as RuleStore.get: services read their settings on every request. */
  private getOne?: Database.Statement<[string], { data: string }>;

  /** The saved settings, or the schema's defaults when none were saved or they no longer validate. */
  get(): z.output<S> {
    this.getOne ??= this.db.prepare<[string], { data: string }>('SELECT data FROM module_settings WHERE module = ?');
    const row = this.getOne.get(this.module);
    return this.decoded.get('', row?.data ?? '', () => {
      if (row) {
        const r = this.schema.safeParse(this.upgrade(JSON.parse(row.data)));
        if (r.success) return r.data;
      }
      return this.schema.parse({});
    });
  }

  set(data: z.input<S> | z.output<S>): z.output<S> {
    const parsed = this.schema.parse(data);
    this.db
      .prepare(
        'INSERT INTO module_settings (module, data, updated_at) VALUES (?, ?, ?) ON CONFLICT(module) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at',
      )
      .run(this.module, JSON.stringify(parsed), Date.now());
    return parsed;
  }
}
