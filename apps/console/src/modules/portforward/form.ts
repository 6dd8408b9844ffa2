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
  parsePortList,
  type ForwardType,
  type Lang,
  type MessageKey,
  type PortforwardConfigure,
  type PortforwardRule,
  type PortforwardStats,
  type PortforwardTls,
  PORT_LIST_MESSAGES,
} from '@lucky/contracts';
import { lang } from '../../i18n';
import { schemaProblems, type ProblemWording } from '../../kit/form/problems';
import { emptyLimits, LIMIT_FIELDS, limitsToBody, limitsToForm, limitValue, type LimitField, type LimitsForm } from '../../kit/form/limits';
import { joinLines, toNumber, type Num } from '../../kit/form/values';
import { formatBytes, lines } from '../../lib/helpers';
import { pfTextIn, type PfText } from './i18n';

export { FORWARD_TYPES };

export { LIMIT_FIELDS, limitValue, type LimitField };
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
  limits: LimitsForm;
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
  limits: emptyLimits(),
  filterMode: 'off',
  filterList: '',
  tls: { listen: false, certSource: 'pem', certNames: [], cert: '', key: '', target: false, targetServerName: '', targetInsecure: false },
  proxyProtocol: 'off',
  note: '',
});

export function toForm(r: PortforwardRule): RuleForm {
  return {
    name: r.name,
    enable: r.enable,
    types: [...r.types],
    listenHost: r.listenHost,
    listenPorts: r.listenPorts,
    targets: joinLines(r.targets),
    targetPorts: r.targetPorts,
    limits: limitsToForm(r.limits),
    filterMode: r.filter.mode,
    filterList: joinLines(r.filter.list),
    tls: { ...r.tls, certNames: [...r.tls.certNames] },
    proxyProtocol: r.proxyProtocol,
    note: r.note,
  };
}

/** Lines, and commas within a line, split a list (spaces stay, so a bad entry is shown whole). */
export const listItems = (text: string): string[] =>
  lines(text)
    .flatMap((l) => l.split(/[,，]/))
    .map((s) => s.trim())
    .filter((s) => s !== '');

/** Types in the contracts' order, each once. */
export const sortTypes = (types: readonly ForwardType[]): ForwardType[] => FORWARD_TYPES.filter((t) => types.includes(t));

export function formToRule(f: RuleForm): PortforwardRule {
  return {
    name: f.name.trim(),
    enable: f.enable,
    types: sortTypes(f.types),
    listenHost: f.listenHost.trim(),
    listenPorts: f.listenPorts.trim(),
    targets: listItems(f.targets),
    targetPorts: f.targetPorts.trim(),
    limits: limitsToBody(f.limits),
    filter: { mode: f.filterMode, list: listItems(f.filterList) },
    tls: { ...f.tls, cert: f.tls.cert.trim() === '' ? '' : f.tls.cert, key: f.tls.key.trim() === '' ? '' : f.tls.key, targetServerName: f.tls.targetServerName.trim() },
    proxyProtocol: f.proxyProtocol,
    note: f.note,
  };
}

const FIELD_LABELS: Record<string, Parameters<PfText>[0]> = {
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

export function fieldLabel(path: readonly PropertyKey[], text: PfText): string {
  const names = path.filter((x): x is string => typeof x === 'string').join('.');
  const id = FIELD_LABELS[names];
  return id ? text(id) : names;
}

/** Every problem is listed under the form; a field shows its own without its name. */
function wording(inLang: Lang): ProblemWording {
  const text = pfTextIn(inLang);
  return {
    lang: inLang,
    text,
    label: (path) => fieldLabel(path, text),
    own: (issue) => (issue.path[0] === 'types' ? text('err.types') : undefined),
    shortInline: true,
  };
}

export const checkRule = (f: RuleForm, inLang: Lang = lang) => schemaProblems(ZPortforwardRule, formToRule(f), wording(inLang));
export const checkSettings = (s: SettingsForm, inLang: Lang = lang) => schemaProblems(ZPortforwardConfigure, settingsToBody(s), wording(inLang));

/** Which tab of the rule form holds a path. */
export type RuleTab = 'basic' | 'limits' | 'filter' | 'tls';
export function tabOf(path: string): RuleTab {
  if (path.startsWith('limits')) return 'limits';
  if (path.startsWith('filter')) return 'filter';
  if (path.startsWith('tls') || path === 'proxyProtocol') return 'tls';
  return 'basic';
}


export type PortFeedback = { ok: true; count: number; text: string } | { ok: false; text: string } | null;

/** Live feedback under a port list field: how many ports it means, or what is wrong. Null when blank. */
export function portFeedback(ports: string, inLang: Lang = lang): PortFeedback {
  if (ports.trim() === '') return null;
  const r = parsePortList(ports);
  if (!r.ok) return { ok: false, text: MESSAGES[inLang][PORT_LIST_MESSAGES[r.error]] };
  return { ok: true, count: r.ports.length, text: pfTextIn(inLang)('portCount', { n: r.ports.length }) };
}

/** Under the target ports: 1:1 with the listening ports, one for all, or the mismatch. */
export function targetPortFeedback(listen: string, target: string, inLang: Lang = lang): PortFeedback {
  const t = portFeedback(target, inLang);
  if (!t || !t.ok) return t;
  const l = parsePortList(listen);
  if (!l.ok) return t;
  const text = pfTextIn(inLang);
  if (t.count === 1) return { ...t, text: l.ports.length === 1 ? text('portCount', { n: 1 }) : text('portOneForAll', { n: l.ports.length }) };
  if (t.count === l.ports.length) return { ...t, text: text('portPaired', { n: t.count }) };
  return { ok: false, text: MESSAGES[inLang].pfPortCountMismatch + ` (${l.ports.length} ≠ ${t.count})` };
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
  for (const k of SETTINGS_NUMBERS) out[k] = toNumber(s[k]);
  return out;
}

/** The module default a blank rule limit follows. */
export function defaultLimit(c: PortforwardConfigure | undefined, f: LimitField): number | undefined {
  if (!c) return undefined;
  if (f === 'tcpMaxConnections') return c.ruleTcpMaxConnections;
  if (f === 'udpMaxSessions') return c.ruleUdpMaxSessions;
  return c[f];
}

/** Lines of `text`, for counting CIDR entries and targets in hints. */
export const countItems = (text: string) => listItems(text).length;
