/**
 * Pure helpers of the STUN screens: the form's state (lists as text, numbers as typed, blank =
 * module default), conversion to and from the contracts' rule, which fields the channel mode and the
 * protocol show, validation messages, and the list's texts.
 */
import {
  MESSAGES,
  ZStunConfigure,
  ZStunRule,
  type Lang,
  type NatBehaviour,
  type StunCommand,
  type StunConfigure,
  type StunFigures,
  type StunNatpmp,
  type StunRule,
  type StunUpnp,
  type Webhook,
} from '@lucky/contracts';
import { lang } from '../../i18n';
import { limitsToBody, limitsToForm, type LimitsForm } from '../../kit/form/limits';
import { schemaProblems, type ProblemWording } from '../../kit/form/problems';
import { joinLines, toNumber, type Num } from '../../kit/form/values';
import { webhookToBody, webhookToForm, type WebhookFormOf } from '../../kit/webhook/request';
import { formatBytes, lines } from '../../lib/helpers';
import { stunTextIn, type StunText } from './i18n';

/** Numbers as typed: the form holds what the user typed until it is checked. */
type Typed<T, K extends keyof T> = Omit<T, K> & { [P in K]: Num };

export type RuleForm = Omit<StunRule, 'localPort' | 'targetPort' | 'limits' | 'filter' | 'stunServers' | 'keepaliveInterval' | 'upnp' | 'natpmp' | 'webhook' | 'command'> & {
  localPort: Num;
  targetPort: Num;
  limits: LimitsForm;
  filterMode: StunRule['filter']['mode'];
  /** One address or CIDR range a line. */
  filterList: string;
  /** One server a line; empty = the module's list. */
  stunServers: string;
  /** Blank = the module's default. */
  keepaliveInterval: Num;
  upnp: Typed<StunUpnp, 'lease'>;
  natpmp: Typed<StunNatpmp, 'lifetime'>;
  webhook: WebhookFormOf<Webhook>;
  command: Typed<StunCommand, 'timeout'>;
};

export const FILTER_MODES = ['off', 'whitelist', 'blacklist'] as const;

export function toForm(r: StunRule): RuleForm {
  return {
    ...r,
    limits: limitsToForm(r.limits),
    filterMode: r.filter.mode,
    filterList: joinLines(r.filter.list),
    stunServers: joinLines(r.stunServers),
    keepaliveInterval: r.keepaliveInterval ?? '',
    upnp: { ...r.upnp },
    natpmp: { ...r.natpmp },
    webhook: webhookToForm(r.webhook),
    command: { ...r.command },
    ddnsTasks: [...r.ddnsTasks],
  };
}

/** A new rule: the contracts' defaults (UDP, port chosen by the system, forward). */
export const emptyForm = (): RuleForm => ({ ...toForm(ZStunRule.parse({ name: 'x', targetHost: 'x', targetPort: 1 })), name: '', targetHost: '', targetPort: '' });

/** '' → null (module default); not a number → NaN so validation names the field. */
const blankIsNull = (v: Num): number | null => (typeof v === 'string' && v.trim() === '' ? null : toNumber(v));

/** A port a hidden field holds: kept when it is one, else 0 (nothing the user sees can be wrong). */
const keptPort = (v: Num): number => {
  const n = toNumber(v);
  return Number.isInteger(n) && n >= 0 && n <= 65535 ? n : 0;
};

/**
 * The rule as the API takes it. Mapping-only rules take no traffic, so their IP filter is off; the
 * keepalive URL is TCP's alone. Everything else is kept whatever the mode, so switching back loses nothing.
 */
export function formToRule(f: RuleForm): StunRule {
  const forward = f.mode === 'forward';
  return {
    name: f.name.trim(),
    enable: f.enable,
    protocol: f.protocol,
    listenHost: f.listenHost.trim(),
    localPort: toNumber(f.localPort),
    mode: f.mode,
    targetHost: f.targetHost.trim(),
    // A blank target port is 0, so the rule's own checks run and name the target host too.
    targetPort: forward ? (blankIsNull(f.targetPort) ?? 0) : keptPort(f.targetPort),
    limits: limitsToBody(f.limits),
    filter: forward ? { mode: f.filterMode, list: lines(f.filterList) } : { mode: 'off', list: [] },
    stunServers: lines(f.stunServers),
    keepaliveInterval: blankIsNull(f.keepaliveInterval),
    keepaliveUrl: f.protocol === 'tcp' ? f.keepaliveUrl.trim() : '',
    upnp: { ...f.upnp, gatewayUrl: f.upnp.gatewayUrl.trim(), lease: toNumber(f.upnp.lease) },
    natpmp: { ...f.natpmp, gateway: f.natpmp.gateway.trim(), lifetime: toNumber(f.natpmp.lifetime) },
    webhook: webhookToBody<Webhook>(f.webhook),
    command: { ...f.command, timeout: toNumber(f.command.timeout) },
    ddnsTasks: [...f.ddnsTasks],
    note: f.note,
  };
}

/** What the channel mode and the protocol show of the form. */
export function shownFields(f: Pick<RuleForm, 'mode' | 'protocol'>) {
  const forward = f.mode === 'forward';
  return { target: forward, limits: forward, filter: forward, keepaliveUrl: f.protocol === 'tcp' };
}

/** Which tab of the rule form holds a path. */
export type RuleTab = 'basic' | 'stun' | 'mapping' | 'forward' | 'notify';
export function tabOf(path: string): RuleTab {
  if (/^(stunServers|keepalive)/.test(path)) return 'stun';
  if (/^(upnp|natpmp)/.test(path)) return 'mapping';
  if (/^(limits|filter)/.test(path)) return 'forward';
  if (/^(webhook|command|ddnsTasks)/.test(path)) return 'notify';
  return 'basic';
}

type TextId = Parameters<StunText>[0];

const FIELD_LABELS: Record<string, TextId> = {
  name: 'name',
  listenHost: 'listenHost',
  localPort: 'localPort',
  targetHost: 'targetHost',
  targetPort: 'targetPort',
  'filter.list': 'filterList',
  stunServers: 'stunServers',
  keepaliveInterval: 'keepaliveInterval',
  keepaliveUrl: 'keepaliveUrl',
  'upnp.gatewayUrl': 'upnpGateway',
  'upnp.lease': 'upnpLease',
  'natpmp.gateway': 'natpmpGateway',
  'natpmp.lifetime': 'natpmpLifetime',
  'webhook.url': 'webhookUrl',
  'webhook.method': 'method',
  'webhook.headers': 'headers',
  'webhook.body': 'body',
  'webhook.successCheck.text': 'successText',
  'webhook.proxy.address': 'proxyAddress',
  'command.line': 'commandLine',
  'command.timeout': 'commandTimeout',
  ddnsTasks: 'ddnsTasks',
  note: 'note',
};
const SETTINGS_LABELS: Record<string, TextId> = {
  stunServers: 'set.stunServers',
  keepaliveInterval: 'set.keepaliveInterval',
  keepaliveUrl: 'set.keepaliveUrl',
  logLines: 'set.logLines',
};

function wording(inLang: Lang, labels: Record<string, TextId>): ProblemWording {
  const text = stunTextIn(inLang);
  return {
    lang: inLang,
    text,
    label: (path) => {
      const names = path.filter((x): x is string => typeof x === 'string').join('.');
      const id = names.startsWith('limits.') ? (`limit.${names.slice(7)}` as TextId) : labels[names];
      return id ? text(id) : names;
    },
    shortInline: true,
  };
}

export const checkRule = (f: RuleForm, inLang: Lang = lang) => schemaProblems(ZStunRule, formToRule(f), wording(inLang, FIELD_LABELS));
export const checkSettings = (s: SettingsForm, inLang: Lang = lang) => schemaProblems(ZStunConfigure, settingsToBody(s), wording(inLang, SETTINGS_LABELS));

// ---- list ----

/** The local port in use: the system's choice when the rule asked for 0. */
export function localPortText(r: { localPort: number; stun: Pick<StunFigures, 'localPort'> }, text: StunText): { port: string; hint: string } {
  if (r.localPort !== 0) return { port: String(r.localPort), hint: '' };
  if (r.stun.localPort !== null) return { port: String(r.stun.localPort), hint: text('autoPortChosen', { port: r.stun.localPort }) };
  return { port: '0', hint: text('autoPort') };
}

export function figuresText(s: StunFigures) {
  return { bytesIn: formatBytes(s.bytesIn), bytesOut: formatBytes(s.bytesOut), refused: s.refusedByLimit + s.refusedByFilter };
}

/** A NAT behaviour in the reader's language (the contracts' message table names them). */
export function behaviourText(b: NatBehaviour, inLang: Lang = lang): string {
  const key = `nat${b[0]!.toUpperCase()}${b.slice(1)}` as 'natEndpointIndependent' | 'natAddressDependent' | 'natAddressAndPortDependent' | 'natUnknown';
  return MESSAGES[inLang][key];
}

// ---- settings ----

export type SettingsForm = Omit<StunConfigure, 'stunServers' | 'keepaliveInterval' | 'logLines'> & { stunServers: string; keepaliveInterval: Num; logLines: Num };

export const settingsToForm = (c: StunConfigure): SettingsForm => ({ ...c, stunServers: joinLines(c.stunServers) });

/** The whole settings object: PUT replaces it. */
export const settingsToBody = (s: SettingsForm): StunConfigure => ({
  stunServers: lines(s.stunServers),
  keepaliveInterval: toNumber(s.keepaliveInterval),
  keepaliveUrl: s.keepaliveUrl.trim(),
  logLines: toNumber(s.logLines),
});
