/**
 * The web service forms' state (lists as one-entry-a-line text, numbers as typed) and its
 * conversion to and from the contracts' rule, sub rule and service.
 */
import { SECRET_MASK, ZWebRule, type WebLimits, type WebRule, type WebService, type WebServiceType, type WebSubRule } from '@lucky/contracts';
import { joinLines, toNumber, type Num } from '../../kit/form/values';
import { certToBody, certToForm, type CertForm } from '../../kit/tls/certs';
import { lines } from '../../lib/helpers';

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
  websocketIdleSeconds: Num;
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
  /** Lucky login: a portal session (module portal) lets a request through; the user's name goes to the app in `userHeader`. */
  portal: { enable: boolean; userHeader: string };
  /** Forward auth: an authorizer is asked first; `copyHeaders` one header name a line. */
  forwardAuth: { enable: boolean; url: string; copyHeaders: string; timeoutSeconds: Num; skipTlsVerify: boolean };
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

/** Body size units, 1000-based like the sizes the console shows (formatBytes, storage quotas). */
export const BODY_UNITS = { KB: 1e3, MB: 1e6, GB: 1e9 } as const;
export type BodyUnit = keyof typeof BODY_UNITS;

/** The rule's limits per client address (0 = none); the largest body as a number and a unit. */
export interface LimitsForm {
  rate: Num;
  burst: Num;
  connections: Num;
  maxBody: Num;
  maxBodyUnit: BodyUnit;
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
  http2: boolean;
  certs: CertForm[];
  /** HTTPS: the plain-HTTP companion's port (redirects, ACME HTTP-01); 0 = none. */
  httpRedirectPort: Num;
  /** Where the companion sends browsers (the public HTTPS port); kept as read: a published service sets it. */
  redirectToPort: number;
  defaultService: ServiceForm;
  subRules: SubRuleForm[];
  access: AccessForm;
  limits: LimitsForm;
  trustedProxies: string;
  clientIpHeaders: string;
  accessLogCapacity: Num;
  note: string;
}

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
  websocketIdleSeconds: 0,
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
        targets: joinLines(s.targets),
        balance: s.balance,
        maxFails: s.maxFails,
        failTimeoutSeconds: s.failTimeoutSeconds,
        healthCheck: { ...s.healthCheck },
        websocket: s.websocket,
        websocketIdleSeconds: s.websocketIdleSeconds,
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
      return { ...f, root: s.root, listing: s.listing, index: joinLines(s.index) };
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
        maxFails: toNumber(f.maxFails),
        failTimeoutSeconds: toNumber(f.failTimeoutSeconds),
        healthCheck: {
          enable: f.healthCheck.enable,
          path: f.healthCheck.path.trim(),
          intervalSeconds: toNumber(f.healthCheck.intervalSeconds),
          timeoutSeconds: toNumber(f.healthCheck.timeoutSeconds),
        },
        websocket: f.websocket,
        websocketIdleSeconds: toNumber(f.websocketIdleSeconds),
        useRequestHost: f.useRequestHost,
        skipTlsVerify: f.skipTlsVerify,
        forwardedHeaders: f.forwardedHeaders,
        requestHeaders: parseHeaders(f.requestHeaders),
        responseHeaders: parseHeaders(f.responseHeaders),
        timeoutSeconds: toNumber(f.timeoutSeconds),
      };
    case 'redirect':
      return { type: 'redirect', code: f.code, target: f.redirectTarget.trim() };
    case 'jump':
      return { type: 'jump', target: f.jumpTarget.trim() };
    case 'file':
      return { type: 'file', root: f.root.trim(), listing: f.listing, index: lines(f.index) };
    case 'text':
      return { type: 'text', status: toNumber(f.status), contentType: f.contentType, body: f.body };
    case 'close':
      return { type: 'close' };
  }
}

type Access = Pick<WebRule, 'basicAuth' | 'portal' | 'forwardAuth' | 'ipFilter' | 'uaFilter' | 'cache' | 'cors' | 'robots'>;

export function accessToForm(a: Access, stored: boolean): AccessForm {
  // A stored password comes masked; the field stays blank, which keeps it (the daemon's rule for hashed secrets).
  const users = a.basicAuth.users.map((u) => ({ user: u.user, password: u.password === SECRET_MASK ? '' : u.password, stored, storedName: u.user }));
  return {
    basicAuth: { enable: a.basicAuth.enable, realm: a.basicAuth.realm, users },
    portal: { ...a.portal },
    forwardAuth: { ...a.forwardAuth, copyHeaders: joinLines(a.forwardAuth.copyHeaders) },
    ipFilter: { mode: a.ipFilter.mode, list: joinLines(a.ipFilter.list) },
    uaFilter: { mode: a.uaFilter.mode, list: joinLines(a.uaFilter.list) },
    cache: { ...a.cache },
    cors: {
      enable: a.cors.enable,
      origins: joinLines(a.cors.origins),
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
    portal: { enable: f.portal.enable, userHeader: f.portal.userHeader.trim() },
    forwardAuth: {
      enable: f.forwardAuth.enable,
      url: f.forwardAuth.url.trim(),
      copyHeaders: lines(f.forwardAuth.copyHeaders),
      timeoutSeconds: toNumber(f.forwardAuth.timeoutSeconds),
      skipTlsVerify: f.forwardAuth.skipTlsVerify,
    },
    ipFilter: { mode: f.ipFilter.mode, list: lines(f.ipFilter.list) },
    uaFilter: { mode: f.uaFilter.mode, list: lines(f.uaFilter.list) },
    cache: { enable: f.cache.enable, maxBytes: toNumber(f.cache.maxBytes), maxEntryBytes: toNumber(f.cache.maxEntryBytes), ttlSeconds: toNumber(f.cache.ttlSeconds) },
    cors: {
      enable: f.cors.enable,
      origins: lines(f.cors.origins),
      methods: words(f.cors.methods).map((m) => m.toUpperCase()),
      headers: words(f.cors.headers),
      credentials: f.cors.credentials,
      maxAgeSeconds: toNumber(f.cors.maxAgeSeconds),
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
  return { name: s.name, enable: s.enable, domains: joinLines(s.domains), service: serviceToForm(s.service), access: accessToForm(s, stored) };
}

export function formToSubRule(f: SubRuleForm): WebSubRule {
  return { name: f.name.trim(), enable: f.enable, domains: lines(f.domains), service: formToService(f.service), ...formToAccess(f.access) };
}

/** A body size in the largest unit it is a whole number of (KB otherwise, with decimals); none in MB. */
export function bodyToForm(bytes: number): { maxBody: Num; maxBodyUnit: BodyUnit } {
  if (bytes === 0) return { maxBody: 0, maxBodyUnit: 'MB' };
  const unit = (['GB', 'MB', 'KB'] as const).find((u) => bytes % BODY_UNITS[u] === 0) ?? 'KB';
  return { maxBody: bytes / BODY_UNITS[unit], maxBodyUnit: unit };
}

/** Whole bytes; not a number stays NaN so validation names the field. */
export const bodyToBytes = (n: Num, unit: BodyUnit): number => Math.round(toNumber(n) * BODY_UNITS[unit]);

export function limitsToForm(l: WebLimits): LimitsForm {
  return { rate: l.rate, burst: l.burst, connections: l.connections, ...bodyToForm(l.maxBodyBytes) };
}

export function formToLimits(f: LimitsForm): WebLimits {
  return { rate: toNumber(f.rate), burst: toNumber(f.burst), connections: toNumber(f.connections), maxBodyBytes: bodyToBytes(f.maxBody, f.maxBodyUnit) };
}

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
    http2: r.http2,
    certs: r.certs.map(certToForm),
    httpRedirectPort: r.httpRedirectPort,
    redirectToPort: r.redirectToPort,
    defaultService: serviceToForm(r.defaultService),
    subRules: r.subRules.map((s) => subRuleToForm(s)),
    access: accessToForm(r, true),
    limits: limitsToForm(r.limits),
    trustedProxies: joinLines(r.trustedProxies),
    clientIpHeaders: r.clientIpHeaders.join(', '),
    accessLogCapacity: r.accessLog.capacity,
    note: r.note,
  };
}

/** The port public CAs check HTTP-01 on, where browsers typed without https:// arrive. */
export const HTTP_PORT = 80;

/**
 * A change of the certificate list: picking an automatic certificate while no HTTP redirect port is
 * set turns the companion on at 80, which HTTP-01 needs and people expect of automatic HTTPS. Only
 * on the pick, so a port cleared afterwards stays cleared.
 */
export function certsChanged(f: Pick<RuleForm, 'certs' | 'httpRedirectPort'>, certs: CertForm[]): Partial<RuleForm> {
  const picked = certs.some((c) => c.source === 'auto') && !f.certs.some((c) => c.source === 'auto');
  const off = String(f.httpRedirectPort).trim() === '' || toNumber(f.httpRedirectPort) === 0;
  return picked && off ? { certs, httpRedirectPort: HTTP_PORT } : { certs };
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
    port: toNumber(f.port),
    firewallAllow: f.firewallAllow,
    minTls: f.minTls,
    http2: f.http2,
    certs: f.certs.map(certToBody),
    httpRedirectPort: toNumber(f.httpRedirectPort),
    redirectToPort: f.redirectToPort,
    defaultService: formToService(f.defaultService),
    subRules: f.subRules.map(formToSubRule),
    ...formToAccess(f.access),
    limits: formToLimits(f.limits),
    trustedProxies: lines(f.trustedProxies),
    clientIpHeaders: f.clientIpHeaders.trim() === '' ? [] : words(f.clientIpHeaders),
    accessLog: { capacity: toNumber(f.accessLogCapacity) },
    note: f.note,
  };
}
