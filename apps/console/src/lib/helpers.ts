/** Spec section 5 and 9 helpers: addresses, JSON, multi-line text, bytes, random strings, levels. */
import { LOG_LEVELS, isIPv4, isIPv6 } from '@lucky/contracts';

export { isIPv4, isIPv6 };

/** A string that parses as JSON (an object, array, or scalar). Empty is not JSON. */
export function isJsonString(s: string): boolean {
  if (s.trim() === '') return false;
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}

/** Removes HTML tags, trims each line and drops blank lines (one entry per line lists). */
export function stripTagsAndBlankLines(text: string): string {
  return text
    .replace(/<[^>]*>/g, '')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .join('\n');
}

/** The non-blank lines of a multi-line field. */
export function lines(text: string): string[] {
  const s = stripTagsAndBlankLines(text);
  return s === '' ? [] : s.split('\n');
}

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB', 'EB'] as const;

/** 1000-based units, 3 significant digits: 1234 → "1.23 KB", 999 → "999 B". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return '-';
  const sign = bytes < 0 ? '-' : '';
  let v = Math.abs(bytes);
  if (v < 1000) return `${sign}${Math.round(v)} B`;
  let i = 0;
  while (v >= 1000 && i < UNITS.length - 1) {
    v /= 1000;
    i++;
  }
  // 999.96 KB rounds to "1000": show it as 1.00 MB instead.
  if (Number(v.toPrecision(3)) >= 1000 && i < UNITS.length - 1) {
    v /= 1000;
    i++;
  }
  return `${sign}${v.toPrecision(3)} ${UNITS[i]}`;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Letters and digits from the browser's CSPRNG; default length 15. */
export function randomString(length = 15): string {
  const out: string[] = [];
  const buf = new Uint8Array(64);
  while (out.length < length) {
    crypto.getRandomValues(buf);
    for (const b of buf) {
      // 248 = 4 * 62: reject the tail so every character is equally likely.
      if (b < 248 && out.length < length) out.push(ALPHABET[b % 62]!);
    }
  }
  return out.join('');
}

export type LogLevel = keyof typeof LOG_LEVELS;
/** Spec section 9: 2 Error, 3 Warn, 4 Info, 5 Debug, 6 Trace. */
export const LOG_LEVEL_VALUES = Object.keys(LOG_LEVELS).map(Number) as LogLevel[];

export { TIME_ZONES, type TimeZone } from './timezones';
