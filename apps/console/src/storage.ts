/**
 * The one localStorage object (spec section 3): everything the console remembers lives in a single
 * JSON value under the key `lucky`, read and written whole.
 */
import type { Lang } from '@lucky/contracts';

export const STORAGE_KEY = 'lucky';

export interface StoredItems {
  lang: Lang;
  token: string;
  twoFAEnable: boolean;
}
export type StoredKey = keyof StoredItems;

function backend(): Storage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined; // storage disabled by the browser
  }
}

function readAll(): Partial<StoredItems> {
  const raw = backend()?.getItem(STORAGE_KEY);
  if (!raw) return {};
  try {
    const v: unknown = JSON.parse(raw);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Partial<StoredItems>) : {};
  } catch {
    return {}; // a damaged value is treated as empty and replaced on the next write
  }
}

function writeAll(items: Partial<StoredItems>): void {
  try {
    backend()?.setItem(STORAGE_KEY, JSON.stringify(items));
  } catch {
    // quota exceeded or storage disabled: the console keeps working without remembering
  }
}

export const storage = {
  get<K extends StoredKey>(key: K): StoredItems[K] | undefined {
    return readAll()[key];
  },
  set<K extends StoredKey>(key: K, value: StoredItems[K]): void {
    writeAll({ ...readAll(), [key]: value });
  },
  /** Several items in one write. */
  merge(values: Partial<StoredItems>): void {
    writeAll({ ...readAll(), ...values });
  },
  remove(key: StoredKey): void {
    const all = readAll();
    delete all[key];
    writeAll(all);
  },
  clear(): void {
    backend()?.removeItem(STORAGE_KEY);
  },
  all(): Partial<StoredItems> {
    return readAll();
  },
};
