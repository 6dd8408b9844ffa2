/**
 * Secrets are declared once, in the schema: `secret(z.string())` marks a field. From that mark alone
 * every answer masks it, a mask sent back keeps the stored value, backups leave it out unless asked,
 * and the daemon hashes the ones declared `{ hash: true }` (passwords it only ever has to check).
 */
import { z } from 'zod';
import { splitLines } from './lines.js';

/** What answers show instead of a stored secret. */
export const SECRET_MASK = '******';

export interface SecretInfo {
  /** Stored as a one-way hash (scrypt): shown masked, never recoverable. */
  hash?: boolean;
  /**
   * Fields beside the secret that say where it is sent (an address, a certificate pin): the mask
   * keeps the stored secret only while they are unchanged, so a secret never goes somewhere new
   * without being typed again.
   */
  boundTo?: readonly string[];
  /**
   * A header line (`Name: value`): only the value is masked (`Name: ******`), so a form still shows
   * which headers are sent, and a line sent back masked keeps the stored line of the same name.
   * `boundTo` then names fields of the object holding the list of lines.
   */
  header?: boolean;
}

const secrets = z.registry<SecretInfo>();

/**
 * Marks a string schema as a secret: `secret(z.string().max(64)).default('')`. The mask itself is
 * valid too, so a form that shows a stored secret as the mask passes its own check unchanged.
 */
export function secret<T extends z.ZodType<string>>(schema: T, info: SecretInfo = {}) {
  const s = z.union([z.literal(SECRET_MASK), schema]);
  secrets.add(s, info);
  return s;
}

/** A step into a value: an object key, or `[]` for every element of an array. */
export type SecretStep = string | [];
export interface SecretPath {
  path: SecretStep[];
  info: SecretInfo;
}

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  options?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
  getter?: () => z.ZodType;
};
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

const cache = new WeakMap<z.ZodType, SecretPath[]>();

/** Where a schema holds secrets. Unions contribute the paths of every option. */
export function secretPaths(schema: z.ZodType): SecretPath[] {
  let hit = cache.get(schema);
  if (!hit) {
    hit = [];
    collect(schema, [], hit, new Set());
    cache.set(schema, hit);
  }
  return hit;
}

function collect(s: z.ZodType, path: SecretStep[], out: SecretPath[], seen: Set<z.ZodType>): void {
  const info = secrets.get(s);
  if (info) {
    out.push({ path, info });
    return;
  }
  if (seen.has(s)) return;
  seen.add(s);
  const d = defOf(s);
  switch (d.type) {
    case 'object':
      for (const [k, v] of Object.entries(d.shape ?? {})) collect(v, [...path, k], out, seen);
      break;
    case 'array':
      if (d.element) collect(d.element, [...path, []], out, seen);
      break;
    case 'pipe':
      if (d.in) collect(d.in, path, out, seen);
      if (d.out) collect(d.out, path, out, seen);
      break;
    case 'union':
      for (const o of d.options ?? []) collect(o, path, out, seen);
      break;
    case 'intersection':
      if (d.left) collect(d.left, path, out, seen);
      if (d.right) collect(d.right, path, out, seen);
      break;
    case 'lazy':
      if (d.getter) collect(d.getter(), path, out, seen);
      break;
    default:
      if (d.innerType) collect(d.innerType, path, out, seen);
  }
  seen.delete(s);
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Calls `fn` at every secret of `value` (a copy is changed, never the input) and returns the copy. */
export function mapSecrets(schema: z.ZodType, value: unknown, fn: (v: unknown, info: SecretInfo, at: Array<string | number>) => unknown): unknown {
  let out = value;
  for (const p of secretPaths(schema)) out = visit(out, p.path, 0, [], (v, at) => fn(v, p.info, at));
  return out;
}

function visit(v: unknown, path: SecretStep[], i: number, at: Array<string | number>, fn: (v: unknown, at: Array<string | number>) => unknown): unknown {
  if (i === path.length) return fn(v, at);
  const step = path[i]!;
  if (Array.isArray(step)) {
    if (!Array.isArray(v)) return v;
    return v.map((e, n) => visit(e, path, i + 1, [...at, n], fn));
  }
  if (!isObj(v) || !(step in v)) return v;
  return { ...v, [step]: visit(v[step], path, i + 1, [...at, step], fn) };
}

/** `Name: value` as answers show it: the name kept, a non-empty value masked. */
export function maskHeaderLine(line: string): string {
  const at = line.indexOf(':');
  if (at < 0) return SECRET_MASK;
  return line.slice(at + 1).trim() === '' ? line : `${line.slice(0, at).trimEnd()}: ${SECRET_MASK}`;
}

/** The value answers show: every non-empty secret replaced by the mask. */
export function maskSecrets<T>(schema: z.ZodType, value: T): T {
  return mapSecrets(schema, value, (v, info) => (typeof v !== 'string' || v === '' ? v : info.header ? maskHeaderLine(v) : SECRET_MASK)) as T;
}

const headerName = (line: string) => (line.includes(':') ? line.slice(0, line.indexOf(':')).trim().toLowerCase() : null);
const MASKED_HEADER = new RegExp(`^[^:]*:\\s*${SECRET_MASK.replace(/\*/g, '\\*')}$`);

/**
 * Header lines sent back: a masked one takes the stored line of its name (the n-th of that name for
 * the n-th masked one), a bare mask the stored nameless line at its turn; one with nothing stored
 * behind it is dropped, as an empty secret would be.
 */
function restoreHeaderLines(incoming: unknown[], stored: unknown): unknown[] {
  const prev = (Array.isArray(stored) ? stored : []).filter((l): l is string => typeof l === 'string');
  const used = new Map<string | null, number>();
  const out: unknown[] = [];
  for (const line of incoming) {
    if (typeof line !== 'string' || (line !== SECRET_MASK && !MASKED_HEADER.test(line))) {
      out.push(line);
      continue;
    }
    const name = line === SECRET_MASK ? null : headerName(line);
    const nth = used.get(name) ?? 0;
    used.set(name, nth + 1);
    const kept = prev.filter((l) => headerName(l) === name)[nth];
    if (kept !== undefined) out.push(kept);
  }
  return out;
}

/** Fields that say which stored element an array element is, in this order; else its position. */
const IDENTITY = ['key', 'name', 'user', 'account', 'id', 'cert'] as const;

/**
 * The stored element an incoming one stands for: the one with the same identity field (a mask names
 * nothing), else the one at the same position. Where the secret is a field of the element itself (a
 * user's password, a certificate's key), an element that names itself and matches none is a new one:
 * it never takes the secret of whatever element happened to sit at its position.
 */
function storedElement(stored: unknown[], incoming: unknown, index: number, leaf: boolean): unknown {
  if (isObj(incoming)) {
    for (const f of IDENTITY) {
      const id = incoming[f];
      if (typeof id !== 'string' || id === '' || id === SECRET_MASK) continue;
      const same = stored.find((s) => isObj(s) && s[f] === id);
      if (same !== undefined || leaf) return same;
    }
  }
  return stored[index];
}

function restoreAt(incoming: unknown, stored: unknown, path: SecretStep[], i: number, info: SecretInfo): unknown {
  if (i === path.length) {
    const kept = typeof stored === 'string' ? stored : '';
    if (incoming === SECRET_MASK) return kept;
    // A hashed secret cannot be shown, so an empty field means "unchanged" where one is stored.
    if (info.hash && incoming === '' && kept !== '') return kept;
    return incoming;
  }
  const step = path[i]!;
  if (Array.isArray(step)) {
    // Header lines may come as one text (the schema splits it the same way after this).
    const list = info.header && i + 1 === path.length ? splitLines(incoming) : incoming;
    if (!Array.isArray(list)) return incoming;
    if (info.header && i + 1 === path.length) return restoreHeaderLines(list, stored);
    const prev = Array.isArray(stored) ? stored : [];
    return list.map((e, n) => restoreAt(e, storedElement(prev, e, n, i + 2 === path.length), path, i + 1, info));
  }
  if (!isObj(incoming) || !(step in incoming)) return incoming;
  let prev = isObj(stored) ? stored[step] : undefined;
  // The secret's own object (for header lines, the one holding the list): what it is bound to must
  // be as stored, or nothing stands behind the mask.
  const own = i + 1 === path.length || (info.header === true && i + 2 === path.length && Array.isArray(path[i + 1]));
  if (own && info.boundTo?.some((f) => String(incoming[f] ?? '').trim() !== String((isObj(stored) ? stored[f] : undefined) ?? '').trim())) prev = undefined;
  return { ...incoming, [step]: restoreAt(incoming[step], prev, path, i + 1, info) };
}

/**
 * An incoming value (not yet validated) with every mask replaced by the stored secret it stands
 * for; a mask with nothing stored behind it becomes empty, so the schema judges it like an empty field.
 */
export function restoreSecrets(schema: z.ZodType, incoming: unknown, stored: unknown): unknown {
  let out = incoming;
  for (const p of secretPaths(schema)) out = restoreAt(out, stored, p.path, 0, p.info);
  return out;
}
