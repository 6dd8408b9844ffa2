/** Pure helpers of the security screen and the system panel (tested in helpers.test.ts). */
import type { AccessEntry, AccessPolicy, BackupSummary, Memory } from '@lucky/contracts';
import { lines } from '../../lib/helpers';

/** Where the console answers with a safe entry path (or at the root without one). */
export function safeEntryAddress(origin: string, path: string): string {
  const p = path.trim();
  return p ? `${origin}/${p}/` : `${origin}/`;
}

/** An entry's expiry as the date input shows it: the last day it still applies; '' for never. */
export function expiryToDate(expires: number): string {
  if (!expires) return '';
  const d = new Date(expires - 1);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** A date input's value as an expiry: the entry applies through that whole (local) day. */
export function dateToExpiry(date: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date.trim());
  if (!m) return 0;
  return new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + 1).getTime();
}

export function isExpired(e: { expires: number }, now = Date.now()): boolean {
  return e.expires > 0 && e.expires <= now;
}

/** One whitelist/blacklist row as edited. */
export interface EntryRow {
  cidr: string;
  note: string;
  /** YYYY-MM-DD or ''. */
  date: string;
}

export const toRow = (e: AccessEntry): EntryRow => ({ cidr: e.cidr, note: e.note, date: expiryToDate(e.expires) });
export const fromRow = (r: EntryRow): AccessEntry => ({ cidr: r.cidr.trim(), note: r.note.trim(), expires: dateToExpiry(r.date) });

export interface AccessForm {
  whitelist: EntryRow[];
  blacklist: EntryRow[];
  whitelistOnly: boolean;
  /** One range per line. */
  localNetworks: string;
}

export function accessToForm(a: AccessPolicy): AccessForm {
  return { whitelist: a.whitelist.map(toRow), blacklist: a.blacklist.map(toRow), whitelistOnly: a.whitelistOnly, localNetworks: a.localNetworks.join('\n') };
}

/** The policy as the API takes it; rows left entirely empty are dropped. */
export function formToAccess(f: AccessForm): AccessPolicy {
  const keep = (r: EntryRow) => r.cidr.trim() !== '' || r.note.trim() !== '' || r.date !== '';
  return {
    whitelist: f.whitelist.filter(keep).map(fromRow),
    blacklist: f.blacklist.filter(keep).map(fromRow),
    whitelistOnly: f.whitelistOnly,
    localNetworks: lines(f.localNetworks),
  };
}

/** Memory given back by a garbage collection (never negative: the heap may also have grown). */
export function freedMemory(before: Memory, after: Memory): { heap: number; rss: number } {
  return { heap: Math.max(0, before.heapUsed - after.heapUsed), rss: Math.max(0, before.rss - after.rss) };
}

export interface SummaryRow {
  module: string;
  add: number;
  update: number;
  remove: number;
  settings: boolean;
}

/** Modules of a restore summary, those that change first, then by key. */
export function summaryRows(s: BackupSummary): SummaryRow[] {
  const changes = (r: SummaryRow) => r.add + r.update + r.remove + (r.settings ? 1 : 0);
  return Object.entries(s.modules)
    .map(([module, m]) => ({ module, ...m }))
    .sort((a, b) => Number(changes(b) > 0) - Number(changes(a) > 0) || a.module.localeCompare(b.module));
}

/** True when restoring changes nothing at all. */
export function summaryIsEmpty(s: BackupSummary): boolean {
  return s.base.length === 0 && summaryRows(s).every((r) => r.add + r.update + r.remove === 0 && !r.settings) && Object.values(s.stores).every((n) => n === 0);
}

/** Recovery codes as one text to copy or print. */
export const recoveryText = (codes: readonly string[]) => codes.join('\n');

/** Six digits, spaces and dashes removed (authenticator apps show "123 456"). */
export function cleanTotp(code: string): string {
  return code.replace(/[\s-]/g, '');
}

/** A short form of a browser's user agent: the browser and the system. */
export function shortAgent(agent: string): string {
  if (!agent) return '-';
  const browser =
    /Edg\/(\d+)/.exec(agent)?.[0].replace('Edg', 'Edge') ??
    /(?:Chrome|Chromium)\/(\d+)/.exec(agent)?.[0] ??
    /Firefox\/(\d+)/.exec(agent)?.[0] ??
    (/Version\/(\d+).*Safari/.exec(agent) ? `Safari/${/Version\/(\d+)/.exec(agent)![1]}` : undefined) ??
    /^(curl|Wget|node|undici|python-requests|Go-http-client)[^\s]*/i.exec(agent)?.[0];
  const os = /Windows|Android|iPhone|iPad|Mac OS X|Linux|CrOS/.exec(agent)?.[0]?.replace('Mac OS X', 'macOS');
  const parts = [browser, os].filter(Boolean);
  return parts.length ? parts.join(' · ') : agent.slice(0, 60);
}
