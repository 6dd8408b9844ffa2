/**
 * Pure helpers of the port forwarding screens: the form's state (lists as text, numbers as typed,
 * blank limits = module default), conversion to and from the contracts' rule, validation messages
 * (spec section 5: a forwarding type, a listening port, a target address and a target port are
 * required), live feedback on port lists (parsePortList), and the list's texts.
 */
import {
  FORWARD_TYPES,
  MESSAGES,
  ZPortforwardConfigure,
  ZPortforwardRule,
  formatIssues,
  msgKey,
  parsePortList,
  type ForwardType,
  type Lang,
  type MessageKey,
  type PortforwardConfigure,
  type PortforwardLimits,
  type PortforwardRule,
  type PortforwardStats,
  type PortforwardTls,
  type PortListError,
  type RuleStatus,
} from '@lucky/contracts';
import { formatBytes, lines } from '../../lib/helpers';
import type { PfTextId } from './i18n';

export { FORWARD_TYPES };

/** A NumberInput's value: a number, or the text being typed ('' = blank). */
export type Num = number | string;

/** A list item: contracts' ruleView() loses the input's own fields in its inferred type. */
export type PfRow = PortforwardRule & { key: string; status: RuleStatus; created: number; updated: number; stats: PortforwardStats };

export const LIMIT_FIELDS = ['tcpMaxConnections', 'udpMaxSessions', 'udpSessionTimeout', 'udpPacketSize', 'tcpIdleTimeout'] as const satisfies readonly (keyof PortforwardLimits)[];
export type LimitField = (typeof LIMIT_FIELDS)[number];
export const FILTER_MODES = ['off', 'whitelist', 'blacklist'] as const;
export const PROXY_PROTOCOLS = ['off', 'v1', 'v2'] as const;

export interface RuleForm {
  name: string;
  enable: boolean;
  types: ForwardType[];
  listenHost: string;
  listenPorts: string;
  /** One target a line (commas accepted too). */
  targets: string;
  targetPorts: string;
  /** Blank = the module setting. */
  limits: Record<LimitField, Num>;
  filterMode: (typeof FILTER_MODES)[number];
  /** One address or CIDR range a line. */
  filterList: string;
  tls: PortforwardTls;
  proxyProtocol: (typeof PROXY_PROTOCOLS)[number];
  note: string;
}

export const emptyForm = (): RuleForm => ({
  name: '',
  enable: true,
  types: ['tcp', 'udp'],
  listenHost: '',
  listenPorts: '',
  targets: '',
  targetPorts: '',
  limits: { tcpMaxConnections: '', udpMaxSessions: '', udpSessionTimeout: '', udpPacketSize: '', tcpIdleTimeout: '' },
  filterMode: 'off',
  filterList: '',
  tls: { listen: false, cert: '', key: '', target: false, targetServerName: '', targetInsecure: false },
  proxyProtocol: 'off',
  note: '',
});

export function toForm(r: PortforwardRule): RuleForm {
  const limits = {} as Record<LimitField, Num>;
  for (const f of LIMIT_FIELDS) limits[f] = r.limits[f] ?? '';
  return {
    name: r.name,
    enable: r.enable,
    types: [...r.types],
    listenHost: r.listenHost,
    listenPorts: r.listenPorts,
    targets: r.targets.join('\n'),
    targetPorts: r.targetPorts,
    limits,
    filterMode: r.filter.mode,
    filterList: r.filter.list.join('\n'),
    tls: { ...r.tls },
    proxyProtocol: r.proxyProtocol,
    note: r.note,
  };
}

/** '' → null (module default); not a number → NaN so validation names the field. */
export function limitValue(v: Num): number | null {
  if (typeof v === 'number') return v;
  if (v.trim() === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : Number.NaN;
}

/** A number field that has no blank meaning. */
export const numberValue = (v: Num): number => (typeof v === 'number' ? v : v.trim() === '' ? Number.NaN : Number(v));

/** Lines, and commas within a line, split a list (spaces stay, so a bad entry is shown whole). */
export const listItems = (text: string): string[] =>
  lines(text)
    .flatMap((l) => l.split(/[,，]/))
    .map((s) => s.trim())
    .filter((s) => s !== '');

/** Types in the contracts' order, each once. */
export const sortTypes = (types: readonly ForwardType[]): ForwardType[] => FORWARD_TYPES.filter((t) => types.includes(t));

export function formToRule(f: RuleForm): PortforwardRule {
  const limits = {} as PortforwardLimits;
  for (const k of LIMIT_FIELDS) limits[k] = limitValue(f.limits[k]);
  return {
    name: f.name.trim(),
    enable: f.enable,
    types: sortTypes(f.types),
    listenHost: f.listenHost.trim(),
    listenPorts: f.listenPorts.trim(),
    targets: listItems(f.targets),
    targetPorts: f.targetPorts.trim(),
    limits,
    filter: { mode: f.filterMode, list: listItems(f.filterList) },
    tls: { ...f.tls, cert: f.tls.cert.trim() === '' ? '' : f.tls.cert, key: f.tls.key.trim() === '' ? '' : f.tls.key, targetServerName: f.tls.targetServerName.trim() },
    proxyProtocol: f.proxyProtocol,
    note: f.note,
  };
}

type Td = (id: PfTextId, vars?: Record<string, string | number>) => string;

const FIELD_LABELS: Record<string, PfTextId> = {
  name: 'name',
  types: 'types',
  listenHost: 'listenHost',
  listenPorts: 'listenPorts',
  targets: 'targets',
  targetPorts: 'targetPorts',
  'limits.tcpMaxConnections': 'limit.tcpMaxConnections',
  'limits.udpMaxSessions': 'limit.udpMaxSessions',
  'limits.udpSessionTimeout': 'limit.udpSessionTimeout',
  'limits.udpPacketSize': 'limit.udpPacketSize',
  'limits.tcpIdleTimeout': 'limit.tcpIdleTimeout',
  'filter.mode': 'filterMode',
  'filter.list': 'filterList',
  'tls.listen': 'tlsListen',
  'tls.cert': 'tlsCert',
  'tls.key': 'tlsKey',
  'tls.targetServerName': 'tlsServerName',
  proxyProtocol: 'proxyProtocol',
  note: 'note',
  tcpMaxConnections: 'set.tcpMaxConnections',
  udpMaxSessions: 'set.udpMaxSessions',
  ruleTcpMaxConnections: 'set.ruleTcpMaxConnections',
  ruleUdpMaxSessions: 'set.ruleUdpMaxSessions',
  udpSessionTimeout: 'limit.udpSessionTimeout',
  udpPacketSize: 'limit.udpPacketSize',
  tcpIdleTimeout: 'limit.tcpIdleTimeout',
  connectTimeout: 'set.connectTimeout',
};

export function fieldLabel(path: readonly PropertyKey[], td: Td): string {
  const names = path.filter((x): x is string => typeof x === 'string');
  const id = FIELD_LABELS[names.join('.')];
  return id ? td(id) : names.join('.');
}

/** The field a path is shown on: `targets.2` → `targets`, `filter.list.0` → `filter.list`. */
export function fieldOf(path: readonly PropertyKey[]): string {
  return path.filter((x): x is string => typeof x === 'string').join('.');
}

export interface Problem {
  /** The field, dotted (`targetPorts`, `tls.cert`). */
  field: string;
  /** The message for the user, naming the field (for the list under the form). */
  message: string;
  /** The same without the field's name where the field itself shows it. */
  inline: string;
}

type Schema = Parameters<typeof formatIssues>[0];

/**
 * Every problem of `value`, the first per field, in the schema's order. "X cannot be empty" for
 * empty required fields, "choose at least one forwarding type", the contracts' own texts otherwise.
 */
export function problems(schema: Schema, value: unknown, lang: Lang, td: Td): Problem[] {
  const r = schema.safeParse(value);
  if (r.success) return [];
  const out: Problem[] = [];
  const seen = new Set<string>();
  const summary = formatIssues(schema, value, lang);
  r.error.issues.forEach((issue, i) => {
    const path = issue.path;
    const field = fieldOf(path);
    if (seen.has(field)) return;
    seen.add(field);
    const label = fieldLabel(path, td);
    const row = path.find((x): x is number => typeof x === 'number');
    let detail = issue.message;
    let message: string;
    let inline: string | undefined;
    if (field === 'types') message = td('err.types');
    else if (detail === msgKey('cannotBeEmpty') || (issue.code === 'too_small' && (issue as { minimum?: unknown }).minimum === 1 && row === undefined)) {
      message = td('err.empty', { field: label });
    } else {
      if (detail.startsWith('@msg:')) detail = MESSAGES[lang][detail.slice(5) as MessageKey] ?? detail;
      // zod's own texts (bounds, NaN) come translated through formatIssues for the first issue only.
      else if (i === 0) detail = summary.replace(/^[^:：]*[:：]\s*/, '');
      else detail = genericDetail(issue, lang);
      message = row !== undefined ? td('err.row', { field: label, n: row + 1, detail }) : td('err.field', { field: label, detail });
      inline = row !== undefined ? td('err.rowInline', { n: row + 1, detail }) : detail;
    }
    out.push({ field, message, inline: inline ?? message });
  });
  return out;
}

/** Bounds and non-numbers for issues after the first (formatIssues describes only the first). */
function genericDetail(issue: { code: string; minimum?: unknown; maximum?: unknown }, lang: Lang): string {
  const zh = lang === 'zh_CN';
  if (issue.code === 'too_small' && typeof issue.minimum !== 'undefined') return zh ? `不能小于 ${String(issue.minimum)}` : `must be at least ${String(issue.minimum)}`;
  if (issue.code === 'too_big' && typeof issue.maximum !== 'undefined') return zh ? `不能大于 ${String(issue.maximum)}` : `must be at most ${String(issue.maximum)}`;
  return zh ? '格式不正确' : 'is not valid';
}

export const checkRule = (f: RuleForm, lang: Lang, td: Td) => problems(ZPortforwardRule, formToRule(f), lang, td);
export const checkSettings = (s: SettingsForm, lang: Lang, td: Td) => problems(ZPortforwardConfigure, settingsToBody(s), lang, td);

export const errorAt = (list: Problem[], field: string): string | undefined => list.find((p) => p.field === field)?.inline;

/** Which tab of the rule form holds a field. */
export type RuleTab = 'basic' | 'limits' | 'filter' | 'tls';
export function tabOf(field: string): RuleTab {
  if (field.startsWith('limits')) return 'limits';
  if (field.startsWith('filter')) return 'filter';
  if (field.startsWith('tls') || field === 'proxyProtocol') return 'tls';
  return 'basic';
}

const PORT_ERRORS: Record<PortListError, MessageKey> = {
  empty: 'cannotBeEmpty',
  syntax: 'pfPortListSyntax',
  range: 'invalidPort',
  reversed: 'pfPortRangeReversed',
  duplicate: 'pfPortListDuplicate',
  tooMany: 'pfPortListTooLong',
};

export type PortFeedback = { ok: true; count: number; text: string } | { ok: false; text: string } | null;

/** Live feedback under a port list field: how many ports it means, or what is wrong. Null when blank. */
export function portFeedback(text: string, lang: Lang, td: Td): PortFeedback {
  if (text.trim() === '') return null;
  const r = parsePortList(text);
  if (!r.ok) return { ok: false, text: MESSAGES[lang][PORT_ERRORS[r.error]] };
  return { ok: true, count: r.ports.length, text: td('portCount', { n: r.ports.length }) };
}

/** Under the target ports: 1:1 with the listening ports, one for all, or the mismatch. */
export function targetPortFeedback(listen: string, target: string, lang: Lang, td: Td): PortFeedback {
  const t = portFeedback(target, lang, td);
  if (!t || !t.ok) return t;
  const l = parsePortList(listen);
  if (!l.ok) return t;
  if (t.count === 1) return { ...t, text: l.ports.length === 1 ? td('portCount', { n: 1 }) : td('portOneForAll', { n: l.ports.length }) };
  if (t.count === l.ports.length) return { ...t, text: td('portPaired', { n: t.count }) };
  return { ok: false, text: MESSAGES[lang].pfPortCountMismatch + ` (${l.ports.length} ≠ ${t.count})` };
}

/** `host:ports` with IPv6 in brackets; all addresses shown as `*`. */
export function listenText(r: Pick<PortforwardRule, 'listenHost' | 'listenPorts'>): string {
  const h = r.listenHost === '' ? '*' : r.listenHost.includes(':') ? `[${r.listenHost}]` : r.listenHost;
  return `${h}:${r.listenPorts.replace(/\s+/g, '')}`;
}

export const hostText = (h: string) => (h.includes(':') ? `[${h}]` : h);

/** The port count of a list that was valid when saved. */
export function portCount(text: string): number {
  const r = parsePortList(text);
  return r.ok ? r.ports.length : 0;
}

export function figuresText(s: PortforwardStats) {
  return {
    bytesIn: formatBytes(s.bytesIn),
    bytesOut: formatBytes(s.bytesOut),
    listeners: `${s.listeners}/${s.listenersWanted}`,
    refused: s.refusedByLimit + s.refusedByFilter,
  };
}

export const STATE_COLOR = { running: 'green', stopped: 'gray', error: 'red', disabled: 'gray' } as const;

// ---- settings ----

export type SettingsForm = Record<Exclude<keyof PortforwardConfigure, 'logConnections'>, Num> & { logConnections: boolean };

export const SETTINGS_NUMBERS = [
  'tcpMaxConnections',
  'udpMaxSessions',
  'ruleTcpMaxConnections',
  'ruleUdpMaxSessions',
  'udpSessionTimeout',
  'udpPacketSize',
  'tcpIdleTimeout',
  'connectTimeout',
] as const satisfies readonly Exclude<keyof PortforwardConfigure, 'logConnections'>[];

export const settingsToForm = (c: PortforwardConfigure): SettingsForm => ({ ...c });

/** The whole settings object: PUT replaces it. */
export function settingsToBody(s: SettingsForm): PortforwardConfigure {
  const out = { logConnections: s.logConnections } as PortforwardConfigure;
  for (const k of SETTINGS_NUMBERS) out[k] = numberValue(s[k]);
  return out;
}

/** The module default a blank rule limit follows. */
export function defaultLimit(c: PortforwardConfigure | undefined, f: LimitField): number | undefined {
  if (!c) return undefined;
  if (f === 'tcpMaxConnections') return c.ruleTcpMaxConnections;
  if (f === 'udpMaxSessions') return c.ruleUdpMaxSessions;
  return c[f];
}

export function formatTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** Lines of `text`, for counting CIDR entries and targets in hints. */
export const countItems = (text: string) => listItems(text).length;
