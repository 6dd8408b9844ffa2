/**
 * The device form ↔ the contract's input, the settings form, and what the list shows of a device's
 * state (uptime, last seen, the figures of its modules).
 */
import { SECRET_MASK, ZWanjiConfigure, ZWanjiDevice, type Lang, type WanjiConfigure, type WanjiDevice, type WanjiDeviceState } from '@lucky/contracts';
import { lang } from '../../i18n';
import { fieldWording, schemaProblems, type FormProblem } from '../../kit/form/problems';
import { toNumber, type Num } from '../../kit/form/values';
import { lines } from '../../lib/helpers';
import { wanjiTextIn } from './i18n';

export interface DeviceForm {
  name: string;
  enable: boolean;
  url: string;
  token: string;
  pin: string;
  ca: string;
  group: string;
  /** One tag a line, or separated by commas. */
  tags: string;
  note: string;
}

export const emptyForm = (): DeviceForm => ({ name: '', enable: true, url: '', token: '', pin: '', ca: '', group: '', tags: '', note: '' });

export const toForm = (d: WanjiDevice): DeviceForm => ({ name: d.name, enable: d.enable, url: d.url, token: d.token, pin: d.pin, ca: d.ca, group: d.group, tags: d.tags.join(', '), note: d.note });

export function formToDevice(f: DeviceForm): WanjiDevice {
  return {
    name: f.name.trim(),
    enable: f.enable,
    url: f.url.trim(),
    token: f.token.trim(),
    pin: f.pin.trim(),
    ca: f.ca.trim() === '' ? '' : f.ca,
    group: f.group.trim(),
    tags: [...new Set(lines(f.tags.replace(/,/g, '\n')))],
    note: f.note,
  };
}

const FIELDS = ['name', 'url', 'token', 'pin', 'ca', 'group', 'tags', 'note'] as const;
const SETTINGS_FIELDS = ['interval', 'timeout', 'concurrency', 'expiryDays'] as const;

/**
 * The contract's checks, and the daemon's rule for a saved token: it stays behind its mask only
 * while the address, pin and CA stay (a token never goes somewhere new without being typed again).
 */
export function checkDevice(f: DeviceForm, inLang: Lang = lang, saved: Pick<WanjiDevice, 'url' | 'pin' | 'ca'> | null = null): FormProblem[] {
  const found = schemaProblems(ZWanjiDevice, formToDevice(f), fieldWording(inLang, wanjiTextIn(inLang), FIELDS));
  const d = formToDevice(f);
  const moved = saved && (d.url.replace(/\/+$/, '') !== saved.url || d.pin !== saved.pin || d.ca.trim() !== saved.ca.trim());
  if (moved && d.token === SECRET_MASK && !found.some((p) => p.field === 'token')) {
    const text = wanjiTextIn(inLang);
    const inline = text('tokenAgain');
    found.push({ path: 'token', field: 'token', message: `${text('field.token')}: ${inline}`, inline, summary: inline });
  }
  return found;
}

export interface SettingsForm {
  interval: Num;
  timeout: Num;
  concurrency: Num;
  expiryDays: Num;
}

export const settingsToForm = (c: WanjiConfigure): SettingsForm => ({ ...c });
export const settingsToBody = (s: SettingsForm): WanjiConfigure => ({
  interval: toNumber(s.interval),
  timeout: toNumber(s.timeout),
  concurrency: toNumber(s.concurrency),
  expiryDays: toNumber(s.expiryDays),
});
export const checkSettings = (s: SettingsForm, inLang: Lang = lang) => schemaProblems(ZWanjiConfigure, settingsToBody(s), fieldWording(inLang, wanjiTextIn(inLang), SETTINGS_FIELDS));

/** Seconds as the largest two units: `3 d 4 h`, `5 min 2 s` (units in the reader's language). */
export function formatUptime(seconds: number, units: { d: string; h: string; min: string; s: string }): string {
  const parts: [number, string][] = [
    [Math.floor(seconds / 86400), units.d],
    [Math.floor((seconds % 86400) / 3600), units.h],
    [Math.floor((seconds % 3600) / 60), units.min],
    [Math.floor(seconds % 60), units.s],
  ];
  const first = parts.findIndex(([n]) => n > 0);
  if (first === -1) return `0 ${units.s}`;
  return parts
    .slice(first, first + 2)
    .filter(([n]) => n > 0)
    .map(([n, u]) => `${n} ${u}`)
    .join(' ');
}

/** How long ago, roughly, in the largest unit: `12 s`, `3 min`, `2 h`, `4 d`. */
export function agoParts(ms: number): { n: number; unit: 's' | 'min' | 'h' | 'd' } {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return { n: s, unit: 's' };
  if (s < 3600) return { n: Math.floor(s / 60), unit: 'min' };
  if (s < 86400) return { n: Math.floor(s / 3600), unit: 'h' };
  return { n: Math.floor(s / 86400), unit: 'd' };
}

/** The rules of a device all told: how many, how many in error. */
export function ruleTotals(s: Pick<WanjiDeviceState, 'rules'>): { total: number; errors: number } {
  let total = 0;
  let errors = 0;
  for (const c of Object.values(s.rules)) {
    total += c.total;
    errors += c.errors;
  }
  return { total, errors };
}

/** A rule as JSON to edit before it is pushed (the drill-down's `rule`, or a new one's name). */
export const ruleJson = (rule: Record<string, unknown>): string => JSON.stringify(rule, null, 2);

/** The JSON of the push form as an object, or null when it is not one. */
export function parseRuleJson(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** What the fleet list shows of a long list: a search, a group, online or not, one page. */
export interface FleetFilter {
  /** Words found in the name, address, group, tags or note. */
  q: string;
  /** A group; empty for all. */
  group: string;
  online: 'all' | 'online' | 'offline';
  /** From 1. */
  page: number;
  /** Rows a page; 0 for all of them. */
  size: number;
}

export const FLEET_PAGE_SIZES = [50, 100, 0] as const;
export const allDevices = (): FleetFilter => ({ q: '', group: '', online: 'all', page: 1, size: FLEET_PAGE_SIZES[0] });

type Filterable = { name: string; url: string; group: string; tags: readonly string[]; note: string; enable: boolean; state: { online: string } };

/** The rows the filter keeps, the page of them asked for (the last one when it asks past it), and the count. */
export function filterDevices<T extends Filterable>(rows: readonly T[], f: FleetFilter): { rows: T[]; total: number; pages: number; page: number } {
  const words = f.q.toLowerCase().split(/\s+/).filter(Boolean);
  const kept = rows.filter((d) => {
    if (f.group && d.group !== f.group) return false;
    if (f.online === 'online' && !(d.enable && d.state.online === 'online')) return false;
    if (f.online === 'offline' && !(d.enable && d.state.online === 'offline')) return false;
    const text = [d.name, d.url, d.group, d.note, ...d.tags].join(' ').toLowerCase();
    return words.every((w) => text.includes(w));
  });
  const pages = f.size > 0 ? Math.max(1, Math.ceil(kept.length / f.size)) : 1;
  const page = Math.min(Math.max(1, f.page), pages);
  return { rows: f.size > 0 ? kept.slice((page - 1) * f.size, page * f.size) : kept, total: kept.length, pages, page };
}
