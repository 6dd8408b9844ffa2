/**
 * The daemon's half of secrets declared in the contracts (`secret()`): what is stored. Masks sent
 * back are replaced by the stored secrets before validation (contracts' restoreSecrets), and
 * secrets declared `{ hash: true }` are stored as scrypt hashes.
 */
import type { z } from 'zod';
import { mapSecrets } from '@lucky/contracts';
import { hashPassword } from './password.js';

/** Hashes every new value of a hashed secret; values already stored (hashes) stay as they are. */
export async function hashSecrets<T>(schema: z.ZodType, value: T, stored: unknown): Promise<T> {
  const known = new Set<string>();
  mapSecrets(schema, stored, (v, info) => {
    if (info.hash && typeof v === 'string') known.add(v);
    return v;
  });
  const plain = new Set<string>();
  mapSecrets(schema, value, (v, info) => {
    if (info.hash && typeof v === 'string' && v !== '' && !known.has(v)) plain.add(v);
    return v;
  });
  if (plain.size === 0) return value;
  const hashed = new Map<string, string>();
  for (const p of plain) hashed.set(p, await hashPassword(p));
  return mapSecrets(schema, value, (v, info) => (info.hash && typeof v === 'string' ? (hashed.get(v) ?? v) : v)) as T;
}
