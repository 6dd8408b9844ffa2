/**
 * Pure helpers of the web service screens: the forms' state (lists as one-entry-a-line text, numbers
 * as typed), conversion to and from the contracts' rule, sub rule and service, validation messages
 * (spec section 5: "domain cannot be empty"), figures for the list.
 */
import {
  DEFAULT_CLIENT_IP_HEADERS,
  DEFAULT_CORS_METHODS,
  MESSAGES,
  SECRET_MASK,
  ZWebRule,
  ZWebSubRule,
  formatIssues,
  msgKey,
  type Lang,
  type MessageKey,
  type RuleStatus,
  type WebCert,
  type WebFigures,
  type WebRule,
  type WebService,
  type WebServiceType,
  type WebSubRule,
} from '@lucky/contracts';
import { formatBytes, lines } from '../../lib/helpers';
import type { WebTextId } from './i18n';

/** A contracts schema (zod itself is the contracts' dependency, not the console's). */
type Schema = Parameters<typeof formatIssues>[0];

/** A NumberInput's value: a number, or the text being typed. */
export type Num = number | string;

export const SERVICE_TYPES = ['proxy', 'redirect', 'jump', 'file', 'text', 'close'] as const satisfies readonly WebServiceType[];
export const REDIRECT_CODES = [301, 302, 307, 308] as const;
export const BALANCES = ['roundrobin', 'leastconn', 'iphash'] as const;
export const FILTER_MODES = ['off', 'blacklist', 'whitelist'] as const;
export const TLS_VERSIONS = ['1.0', '1.1', '1.2', '1.3'] as const;

/** Every service type's fields in one object, so switching type keeps what was typed. */
export interface ServiceForm {
  type: WebServiceType;
  targets: string;
  balance: (typeof BALANCES)[number];
  maxFails: Num;
  failTimeoutSeconds: Num;
  healthCheck: { enable: boolean; path: string; intervalSeconds: Num; timeoutSeconds: Num };
  websocket: boolean;
  useRequestHost: boolean;
  skipTlsVerify: boolean;
  forwardedHeaders: boolean;
  requestHeaders: string;
  responseHeaders: string;
  timeoutSeconds: Num;
  code: (typeof REDIRECT_CODES)[number];
  redirectTarget: string;
  jumpTarget: string;
  root: string;
  listing: boolean;
  index: string;
  status: Num;
  contentType: string;
  body: string;
}

export interface UserForm {
  user: string;
  password: string;
  /** The user came from the stored rule: an empty password keeps the stored one (while the name is unchanged). */
  stored: boolean;
  storedName: string;
}

/** A blank password means "unchanged" only for a stored user under its stored name. */
export const keepsPassword = (u: UserForm) => u.stored && u.user.trim() === u.storedName;

export interface AccessForm {
  basicAuth: { enable: boolean; realm: string; users: UserForm[] };
  ipFilter: { mode: (typeof FILTER_MODES)[number]; list: string };
  uaFilter: { mode: (typeof FILTER_MODES)[number]; list: string };
  cache: { enable: boolean; maxBytes: Num; maxEntryBytes: Num; ttlSeconds: Num };
  cors: { enable: boolean; origins: string; methods: string; headers: string; credentials: boolean; maxAgeSeconds: Num };
  robots: { enable: boolean; text: string };
}

export interface SubRuleForm {
  name: string;
  enable: boolean;
  domains: string;
  service: ServiceForm;
  access: AccessForm;
}

export interface CertForm {
  source: WebCert['source'];
  cert: string;
  key: string;
  domains: string;
}

export interface RuleForm {
  name: string;
  enable: boolean;
  network: WebRule['network'];
  protocol: WebRule['protocol'];
  address: string;
  port: Num;
  firewallAllow: boolean;
  minTls: WebRule['minTls'];
  certs: CertForm[];
  defaultService: ServiceForm;
  subRules: SubRuleForm[];
  access: AccessForm;
  trustedProxies: string;
  clientIpHeaders: string;
  accessLogCapacity: Num;
  note: string;
}

/** A list item: the rule plus the rule-view fields (ruleView's inferred type loses the rule's own fields). */
export type WebRow = WebRule & { key: string; status: RuleStatus; created: number; updated: number; figures: WebFigures; firewall: string };

const text = (a: readonly string[]) => a.join('\n');
const num = (v: Num): number => (typeof v === 'number' ? v : v.trim() === '' ? Number.NaN : Number(v));

/** "Name: value" one a line; a line without a colon is a name with an empty value (the schema checks the name). */
export function parseHeaders(s: string): { name: string; value: string }[] {
  return lines(s).map((l) => {
    const i = l.indexOf(':');
    return i === -1 ? { name: l.trim(), value: '' } : { name: l.slice(0, i).trim(), value: l.slice(i + 1).trim() };
  });
}
export const headersText = (h: readonly { name: string; value: string }[]) => h.map((x) => `${x.name}: ${x.value}`).join('\n');

/** Comma, space or line separated (CORS methods, client-IP headers). */
export function words(s: string): string[] {
  return s
    .split(/[\s,]+/)
    .map((w) => w.trim())
    .filter(Boolean);
}

const BASE_SERVICE: ServiceForm = {
  type: 'proxy',
  targets: '',
  balance: 'roundrobin',
  maxFails: 1,
  failTimeoutSeconds: 10,
  healthCheck: { enable: false, path: '/', intervalSeconds: 10, timeoutSeconds: 3 },
  websocket: true,
  useRequestHost: true,
  skipTlsVerify: false,
  forwardedHeaders: true,
  requestHeaders: '',
  responseHeaders: '',
  timeoutSeconds: 60,
  code: 302,
  redirectTarget: 'https://{host}{path}',
  jumpTarget: 'https://{hostAndPort}{path}',
  root: '',
  listing: false,
  index: 'index.html',
  status: 200,
  contentType: 'text/plain; charset=utf-8',
  body: '',
};

export function emptyService(type: WebServiceType = 'proxy'): ServiceForm {
  return structuredClone({ ...BASE_SERVICE, type });
}

export function serviceToForm(s: WebService): ServiceForm {
  const f = emptyService(s.type);
  switch (s.type) {
    case 'proxy':
      return {
        ...f,
        targets: text(s.targets),
        balance: s.balance,
        maxFails: s.maxFails,
        failTimeoutSeconds: s.failTimeoutSeconds,
        healthCheck: { ...s.healthCheck },
        websocket: s.websocket,
        useRequestHost: s.useRequestHost,
        skipTlsVerify: s.skipTlsVerify,
        forwardedHeaders: s.forwardedHeaders,
        requestHeaders: headersText(s.requestHeaders),
        responseHeaders: headersText(s.responseHeaders),
        timeoutSeconds: s.timeoutSeconds,
      };
    case 'redirect':
      return { ...f, code: s.code, redirectTarget: s.target };
    case 'jump':
      return { ...f, jumpTarget: s.target };
    case 'file':
      return { ...f, root: s.root, listing: s.listing, index: text(s.index) };
    case 'text':
      return { ...f, status: s.status, contentType: s.contentType, body: s.body };
    case 'close':
      return f;
  }
}

/** Only the chosen type's fields; numbers stay NaN when not numbers so validation names the field. */
export function formToService(f: ServiceForm): WebService {
  switch (f.type) {
    case 'proxy':
      return {
        type: 'proxy',
        targets: lines(f.targets),
        balance: f.balance,
        maxFails: num(f.maxFails),
        failTimeoutSeconds: num(f.failTimeoutSeconds),
        healthCheck: {
          enable: f.healthCheck.enable,
          path: f.healthCheck.path.trim(),
          intervalSeconds: num(f.healthCheck.intervalSeconds),
          timeoutSeconds: num(f.healthCheck.timeoutSeconds),
        },
        websocket: f.websocket,
        useRequestHost: f.useRequestHost,
        skipTlsVerify: f.skipTlsVerify,
        forwardedHeaders: f.forwardedHeaders,
        requestHeaders: parseHeaders(f.requestHeaders),
        responseHeaders: parseHeaders(f.responseHeaders),
        timeoutSeconds: num(f.timeoutSeconds),
      };
    case 'redirect':
      return { type: 'redirect', code: f.code, target: f.redirectTarget.trim() };
    case 'jump':
      return { type: 'jump', target: f.jumpTarget.trim() };
    case 'file':
      return { type: 'file', root: f.root.trim(), listing: f.listing, index: lines(f.index) };
    case 'text':
      return { type: 'text', status: num(f.status), contentType: f.contentType, body: f.body };
    case 'close':
      return { type: 'close' };
  }
}

type Access = Pick<WebRule, 'basicAuth' | 'ipFilter' | 'uaFilter' | 'cache' | 'cors' | 'robots'>;

export function accessToForm(a: Access, stored: boolean): AccessForm {
  // A stored password comes masked; the field stays blank, which keeps it (the daemon's rule for hashed secrets).
  const users = a.basicAuth.users.map((u) => ({ user: u.user, password: u.password === SECRET_MASK ? '' : u.password, stored, storedName: u.user }));
  return {
    basicAuth: { enable: a.basicAuth.enable, realm: a.basicAuth.realm, users },
    ipFilter: { mode: a.ipFilter.mode, list: text(a.ipFilter.list) },
    uaFilter: { mode: a.uaFilter.mode, list: text(a.uaFilter.list) },
    cache: { ...a.cache },
    cors: {
      enable: a.cors.enable,
      origins: text(a.cors.origins),
      methods: a.cors.methods.join(', '),
      headers: a.cors.headers.join(', '),
      credentials: a.cors.credentials,
      maxAgeSeconds: a.cors.maxAgeSeconds,
    },
    robots: { ...a.robots },
  };
}

export function formToAccess(f: AccessForm): Access {
  return {
    basicAuth: { enable: f.basicAuth.enable, realm: f.basicAuth.realm, users: f.basicAuth.users.map((u) => ({ user: u.user.trim(), password: u.password })) },
    ipFilter: { mode: f.ipFilter.mode, list: lines(f.ipFilter.list) },
    uaFilter: { mode: f.uaFilter.mode, list: lines(f.uaFilter.list) },
    cache: { enable: f.cache.enable, maxBytes: num(f.cache.maxBytes), maxEntryBytes: num(f.cache.maxEntryBytes), ttlSeconds: num(f.cache.ttlSeconds) },
    cors: {
      enable: f.cors.enable,
      origins: lines(f.cors.origins),
      methods: words(f.cors.methods).map((m) => m.toUpperCase()),
      headers: words(f.cors.headers),
      credentials: f.cors.credentials,
      maxAgeSeconds: num(f.cors.maxAgeSeconds),
    },
    robots: { enable: f.robots.enable, text: f.robots.text },
  };
}

/** The schema's defaults for the access settings (CORS methods POST, GET, PUT, OPTIONS, DELETE...). */
export function emptyAccess(): AccessForm {
  const r = ZWebRule.parse({ name: 'x', port: 1 });
  return accessToForm(r, false);
}

export function emptySubRule(): SubRuleForm {
  return { name: '', enable: true, domains: '', service: emptyService('proxy'), access: emptyAccess() };
}

export function subRuleToForm(s: WebSubRule, stored = true): SubRuleForm {
  return { name: s.name, enable: s.enable, domains: text(s.domains), service: serviceToForm(s.service), access: accessToForm(s, stored) };
}

export function formToSubRule(f: SubRuleForm): WebSubRule {
  return { name: f.name.trim(), enable: f.enable, domains: lines(f.domains), service: formToService(f.service), ...formToAccess(f.access) };
}

const certToForm = (c: WebCert): CertForm => ({ source: c.source, cert: c.cert, key: c.key, domains: text(c.domains) });
export const emptyCert = (): CertForm => ({ source: 'pem', cert: '', key: '', domains: '' });

export function ruleToForm(r: WebRule): RuleForm {
  return {
    name: r.name,
    enable: r.enable,
    network: r.network,
    protocol: r.protocol,
    address: r.address,
    port: r.port,
    firewallAllow: r.firewallAllow,
    minTls: r.minTls,
    certs: r.certs.map(certToForm),
    defaultService: serviceToForm(r.defaultService),
    subRules: r.subRules.map((s) => subRuleToForm(s)),
    access: accessToForm(r, true),
    trustedProxies: text(r.trustedProxies),
    clientIpHeaders: r.clientIpHeaders.join(', '),
    accessLogCapacity: r.accessLog.capacity,
    note: r.note,
  };
}

/** A new rule: the contracts' defaults (HTTP on tcp4, every address, a 404 text default service). */
export function emptyRule(): RuleForm {
  const r = ZWebRule.parse({ name: 'x', port: 1 });
  return { ...ruleToForm(r), name: '', port: '', access: accessToForm(r, false) };
}

export function formToRule(f: RuleForm): WebRule {
  return {
    name: f.name.trim(),
    enable: f.enable,
    network: f.network,
    protocol: f.protocol,
    address: f.address.trim(),
    port: num(f.port),
    firewallAllow: f.firewallAllow,
    minTls: f.minTls,
    certs: f.certs.map((c) => ({ source: c.source, cert: c.source === 'file' ? c.cert.trim() : c.cert, key: c.source === 'file' ? c.key.trim() : c.key, domains: lines(c.domains) })),
    defaultService: formToService(f.defaultService),
    subRules: f.subRules.map(formToSubRule),
    ...formToAccess(f.access),
    trustedProxies: lines(f.trustedProxies),
    clientIpHeaders: f.clientIpHeaders.trim() === '' ? [] : words(f.clientIpHeaders),
    accessLog: { capacity: num(f.accessLogCapacity) },
    note: f.note,
  };
}

export const DEFAULTS = { corsMethods: DEFAULT_CORS_METHODS, clientIpHeaders: DEFAULT_CLIENT_IP_HEADERS };

/** The first problem of a value: the contracts' one-line message, its path, and a message naming the field. */
export interface Problem {
  /** `formatIssues`: names the field as the daemon would ("参数 subRules[0].domains 错误：不能为空"). */
  summary: string;
  /** Dotted path: `port`, `subRules.0.domains`, `basicAuth.users.1.user`. */
  path: string;
  /** The field's own message ("域名不能为空"). */
  message: string;
}

/** Field labels by path with the numbers dropped; sub rule paths without their `subRules.N.` prefix. */
const FIELD_LABELS: Record<string, WebTextId> = {
  name: 'field.name',
  port: 'field.port',
  address: 'field.address',
  'certs.cert': 'field.cert',
  'certs.key': 'field.key',
  'certs.domains': 'field.certDomains',
  domains: 'field.domains',
  'service.targets': 'field.targets',
  'service.target': 'field.target',
  'service.root': 'field.root',
  'service.index': 'field.index',
  'service.status': 'field.status',
  'service.contentType': 'field.contentType',
  'service.requestHeaders': 'field.requestHeaders',
  'service.responseHeaders': 'field.responseHeaders',
  'service.healthCheck.path': 'field.healthPath',
  'service.healthCheck.intervalSeconds': 'field.healthInterval',
  'service.healthCheck.timeoutSeconds': 'field.healthTimeout',
  'service.maxFails': 'field.maxFails',
  'service.failTimeoutSeconds': 'field.failTimeout',
  'service.timeoutSeconds': 'field.proxyTimeout',
  'basicAuth.users.user': 'field.user',
  'basicAuth.users.password': 'field.password',
  'basicAuth.realm': 'field.realm',
  'ipFilter.list': 'field.ipList',
  'uaFilter.list': 'field.uaList',
  'cache.maxBytes': 'field.cacheMax',
  'cache.maxEntryBytes': 'field.cacheEntryMax',
  'cache.ttlSeconds': 'field.cacheTtl',
  'cors.origins': 'field.corsOrigins',
  'cors.methods': 'field.corsMethods',
  'cors.headers': 'field.corsHeaders',
  'cors.maxAgeSeconds': 'field.corsMaxAge',
  'robots.text': 'field.robots',
  trustedProxies: 'field.trustedProxies',
  clientIpHeaders: 'field.clientIpHeaders',
  'accessLog.capacity': 'field.accessLogCapacity',
  note: 'field.note',
  from: 'field.from',
  to: 'field.to',
  accessLogShow: 'field.accessLogShow',
  servingThreads: 'field.servingThreads',
};

type Td = (id: WebTextId, vars?: Record<string, string | number>) => string;

/** `defaultService` is the rule's `service`; a sub rule's fields are named inside "sub rule N". */
export function fieldLabel(path: readonly (string | number)[], td: Td): string {
  let p = [...path];
  let prefix = '';
  if (p[0] === 'subRules' && typeof p[1] === 'number') {
    prefix = td('field.subRule', { n: p[1] + 1 }) + ' · ';
    p = p.slice(2);
  }
  if (p[0] === 'defaultService') p = ['service', ...p.slice(1)];
  const names = p.filter((x): x is string => typeof x === 'string');
  const id = FIELD_LABELS[names.join('.')];
  return prefix + (id ? td(id) : names.join('.'));
}

/**
 * Checks `value` with `schema` in `lang`. Null when valid. "X cannot be empty" for empty fields
 * (spec section 5), the contracts' own text for formats and bounds, the line for list entries.
 */
export function firstProblem(schema: Schema, value: unknown, lang: Lang, td: Td): Problem | null {
  const r = schema.safeParse(value);
  if (r.success) return null;
  const issue = r.error.issues[0];
  if (!issue) return null;
  const summary = formatIssues(schema, value, lang);
  const ipath = issue.path as (string | number)[];
  const path = ipath.map(String).join('.');
  const field = fieldLabel(ipath, td);
  // The row inside a list field (not the sub rule's own index).
  const inner = ipath[0] === 'subRules' ? ipath.slice(2) : ipath;
  const row = inner.find((x): x is number => typeof x === 'number');
  let detail = issue.message;
  if (detail === msgKey('cannotBeEmpty') || (issue.code === 'too_small' && (issue as { minimum?: unknown }).minimum === 1 && row === undefined)) {
    return { summary, path, message: td('err.empty', { field }) };
  }
  // Numeric bounds in words ("访问日志容量不能大于 102400"), with the line for list entries.
  const bound = issue as { origin?: unknown; maximum?: unknown; minimum?: unknown };
  if (!detail.startsWith('@msg:') && bound.origin === 'number' && (issue.code === 'too_big' || issue.code === 'too_small')) {
    const n = Number(issue.code === 'too_big' ? bound.maximum : bound.minimum);
    const msg = td(issue.code === 'too_big' ? 'err.max' : 'err.min', { field, n });
    return { summary, path, message: row !== undefined ? td('err.row', { field, n: row + 1, detail: msg }) : msg };
  }
  if (detail.startsWith('@msg:')) detail = MESSAGES[lang][detail.slice(5) as MessageKey] ?? detail;
  else detail = summary.replace(/^[^:：]*[:：]\s*/, '');
  const message = row !== undefined ? td('err.row', { field, n: row + 1, detail }) : td('err.field', { field, detail });
  return { summary, path, message };
}

export const checkRule = (f: RuleForm, lang: Lang, td: Td) => firstProblem(ZWebRule, formToRule(f), lang, td);
export const checkSubRule = (f: SubRuleForm, lang: Lang, td: Td) => firstProblem(ZWebSubRule, formToSubRule(f), lang, td);

/** "service.targets.2" is shown on the field "service.targets". */
export function errorFor(problem: Problem | null, field: string): string | undefined {
  if (!problem) return undefined;
  return problem.path === field || problem.path.startsWith(field + '.') ? problem.message : undefined;
}

/** Which tab of the rule form holds a path. */
export type RuleTab = 'basic' | 'https' | 'service' | 'subrules' | 'access';
export function tabOf(path: string): RuleTab {
  if (path.startsWith('certs') || path === 'minTls') return 'https';
  if (path.startsWith('defaultService')) return 'service';
  if (path.startsWith('subRules')) return 'subrules';
  if (/^(basicAuth|ipFilter|uaFilter|cache|cors|robots|trustedProxies|clientIpHeaders|accessLog)/.test(path)) return 'access';
  return 'basic';
}

/** Which section of the access editor holds a path (so it can be opened). */
export function accessSectionOf(path: string): string | null {
  const m = /^(?:subRules\.\d+\.)?(basicAuth|ipFilter|uaFilter|cache|cors|robots)/.exec(path);
  return m ? m[1]! : null;
}

/** A new user without a password cannot be saved (stored users keep theirs when left blank). */
export function missingPassword(users: readonly UserForm[]): string | null {
  return users.find((u) => !keepsPassword(u) && u.user.trim() !== '' && u.password === '')?.user.trim() ?? null;
}

/** "0.0.0.0:8080", "[::]:8443", "127.0.0.1:80" — what the rule listens on. */
export function listenText(r: Pick<WebRule, 'network' | 'address' | 'port'>): string {
  const host = r.address || (r.network === 'tcp6' ? '::' : '0.0.0.0');
  return host.includes(':') ? `[${host}]:${r.port}` : `${host}:${r.port}`;
}

/** A URL to open the rule in the browser (the page's host when it listens on every address). */
export function openUrl(r: Pick<WebRule, 'network' | 'address' | 'port' | 'protocol'>, pageHost: string): string {
  const any = r.address === '' || r.address === '0.0.0.0' || r.address === '::';
  const host = any ? pageHost : r.address;
  const h = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `${r.protocol}://${h}:${r.port}/`;
}

/** Status codes by class, most frequent first: [["200", 10], ["404", 1]]. */
export function codeList(codes: Record<string, number>): [string, number][] {
  return Object.entries(codes)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

export function codeColor(code: string): string {
  const c = Number(code);
  if (c === 0) return 'gray';
  if (c < 300) return 'green';
  if (c < 400) return 'blue';
  if (c < 500) return 'orange';
  return 'red';
}

/** Requests as a plain count with thousands separators; bytes 1000-based with 3 significant digits. */
export function figuresText(f: WebFigures): { requests: string; bytesIn: string; bytesOut: string; connections: string } {
  return {
    requests: f.requests.toLocaleString('en-US'),
    bytesIn: formatBytes(f.bytesIn),
    bytesOut: formatBytes(f.bytesOut),
    connections: String(f.connections),
  };
}

export const STATE_COLOR: Record<RuleStatus['state'], string> = { running: 'green', stopped: 'gray', error: 'red', disabled: 'gray' };

/** The domains a rule serves, for the list. */
export function ruleDomains(r: Pick<WebRule, 'subRules'>): string[] {
  return [...new Set(r.subRules.flatMap((s) => s.domains))];
}

/** Local date-time with milliseconds dropped. */
export function formatTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}
