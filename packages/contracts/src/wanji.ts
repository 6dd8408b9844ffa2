/**
 * Wanji admin: other Lucky devices (routers, NAS boxes, sites) managed from this console. A device is
 * a rule: its base URL, an API token of that device (`lk_…`, read or full scope; stored here only,
 * masked in every answer), how its certificate is trusted, a group and tags. The daemon polls every
 * device in the background and drives it through the device's own API; the browser never sees a token.
 */
import { z } from 'zod';
import { ZModuleKey } from './core.js';
import { ok } from './envelope.js';
import { msgKey } from './i18n.js';
import { ZNonEmpty } from './net.js';
import { route } from './route.js';
import { moduleContract, ruleView, ZRuleKey, ZRuleParams, ZRuleStatus } from './rules.js';
import { ZApiTokenScope } from './safe.js';
import { secret } from './secrets.js';

/** An API token as the security module makes them: `lk_` and 32 random bytes in base64url. */
export const WANJI_TOKEN_RE = /^lk_[A-Za-z0-9_-]{43}$/;

/**
 * A device's base URL: http or https, a host, an optional port and path (a device behind a safe
 * entry path); no user, query or fragment.
 */
export function isDeviceUrl(s: string): boolean {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return false;
  }
  return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '' && !u.username && !u.password && !u.search && !u.hash && !/\s/.test(s);
}

/** A SHA-256 fingerprint as `AB:CD:…` (the form Node and browsers show) or 64 hex digits. */
export const WANJI_PIN_RE = /^[0-9A-Fa-f]{2}(:?[0-9A-Fa-f]{2}){31}$/;

/** The fingerprint in one spelling: upper case with colons, as Node's `fingerprint256`. */
export function normalizePin(pin: string): string {
  const hex = pin.replace(/:/g, '').toUpperCase();
  return hex.match(/.{2}/g)?.join(':') ?? '';
}

export const ZWanjiDeviceFields = z.object({
  name: ZNonEmpty.max(64),
  enable: z.boolean().default(true),
  /** `https://nas.lan:16601`, `http://10.0.0.2:16601/safe-path`. */
  url: z.string().trim().max(2048).refine(isDeviceUrl, { error: msgKey('wanjiBadUrl') }),
  /**
   * An API token of the device (security management → API tokens there). Kept behind the mask only
   * while the address, pin and CA stay: a token never goes to a new place without being typed again.
   */
  token: secret(z.string().trim().regex(WANJI_TOKEN_RE, { error: msgKey('wanjiBadToken') }), { boundTo: ['url', 'pin', 'ca'] }),
  /** SHA-256 fingerprint of the device's certificate: when set, that certificate alone is trusted (self-signed devices). */
  pin: z.string().trim().max(95).regex(/^$|^[0-9A-Fa-f:]+$/, { error: msgKey('wanjiBadPin') }).refine((s) => s === '' || WANJI_PIN_RE.test(s), { error: msgKey('wanjiBadPin') }).default(''),
  /** PEM root certificate(s) the device's certificate is checked against instead of the system's. */
  ca: z.string().max(65536).default(''),
  group: z.string().trim().max(64).default(''),
  tags: z.array(z.string().trim().min(1, { error: msgKey('cannotBeEmpty') }).max(32)).max(16).default([]),
  note: z.string().max(512).default(''),
});

export const ZWanjiDevice = ZWanjiDeviceFields.superRefine((d, ctx) => {
  const https = /^https:/i.test(d.url);
  if (!https && d.pin !== '') ctx.addIssue({ code: 'custom', path: ['pin'], message: msgKey('wanjiTlsNeedsHttps') });
  if (!https && d.ca.trim() !== '') ctx.addIssue({ code: 'custom', path: ['ca'], message: msgKey('wanjiTlsNeedsHttps') });
});
export type WanjiDevice = z.infer<typeof ZWanjiDevice>;
export type WanjiDeviceInput = z.input<typeof ZWanjiDevice>;

export const ZWanjiOnline = z.enum(['online', 'offline', 'unknown']);
export type WanjiOnline = z.infer<typeof ZWanjiOnline>;

/** A module's rules on a device: how many, how many switched on, how many in error. */
export const ZWanjiRuleCounts = z.object({ total: z.number(), enabled: z.number(), errors: z.number() });
export type WanjiRuleCounts = z.infer<typeof ZWanjiRuleCounts>;

/** What the last polls of a device found. */
export const ZWanjiDeviceState = z.object({
  online: ZWanjiOnline,
  /** The last poll that reached the device (ms since the epoch). */
  lastSeen: z.number().nullable(),
  lastPoll: z.number().nullable(),
  /** Why the last poll failed, in the reader's language; empty when it did not. */
  error: z.string(),
  /** How long the last poll took, ms. */
  latency: z.number().nullable(),
  version: z.string(),
  hostname: z.string(),
  /** What the token may do there; null until a poll or a test has asked. */
  scope: ZApiTokenScope.nullable(),
  /** Seconds the device's Lucky has been running. */
  uptime: z.number().nullable(),
  /** Whole-machine CPU busy, percent. */
  cpu: z.number().nullable(),
  /** Whole-machine memory in use, percent. */
  memory: z.number().nullable(),
  /** Resident memory of the device's Lucky, bytes. */
  rss: z.number().nullable(),
  /** Module keys switched on there. */
  modules: z.array(z.string()),
  /** Rule counts per module key. */
  rules: z.record(z.string(), ZWanjiRuleCounts),
  ruleErrors: z.number(),
  /** DDNS tasks whose last sync failed; null when DDNS is off there. */
  ddnsFailing: z.number().nullable(),
  /** Certificates expiring within the module's window (or expired); null when the certificate module is off there. */
  certsExpiring: z.number().nullable(),
  /** The last samples, oldest first, for the list's small graphs. */
  history: z.object({ cpu: z.array(z.number()), memory: z.array(z.number()), latency: z.array(z.number()) }),
});
export type WanjiDeviceState = z.infer<typeof ZWanjiDeviceState>;

/** A device's state before its first poll (new lists each time: the engine fills them in). */
export function emptyDeviceState(): WanjiDeviceState {
  return {
    online: 'unknown',
    lastSeen: null,
    lastPoll: null,
    error: '',
    latency: null,
    version: '',
    hostname: '',
    scope: null,
    uptime: null,
    cpu: null,
    memory: null,
    rss: null,
    modules: [],
    rules: {},
    ruleErrors: 0,
    ddnsFailing: null,
    certsExpiring: null,
    history: { cpu: [], memory: [], latency: [] },
  };
}

export const ZWanjiDeviceView = ruleView(ZWanjiDeviceFields, { state: ZWanjiDeviceState });
export type WanjiDeviceView = z.infer<typeof ZWanjiDeviceView>;

export const ZWanjiConfigure = z.object({
  /** Seconds between two polls of a device. */
  interval: z.number().int().min(5).max(3600).default(30),
  /** Seconds a poll of one device may take. */
  timeout: z.number().int().min(1).max(60).default(5),
  /** Devices polled at the same time. */
  concurrency: z.number().int().min(1).max(64).default(16),
  /** Days before expiry from which a certificate counts as expiring. */
  expiryDays: z.number().int().min(1).max(365).default(14),
});
export type WanjiConfigure = z.infer<typeof ZWanjiConfigure>;

/** A rule of a device, as the drill-down lists it; `rule` is its input (secrets masked by the device). */
export const ZWanjiRemoteRule = z.object({
  key: ZRuleKey,
  name: z.string(),
  enable: z.boolean(),
  status: ZRuleStatus,
  rule: z.record(z.string(), z.unknown()),
});
export type WanjiRemoteRule = z.infer<typeof ZWanjiRemoteRule>;

/** What can be done to one device from here. */
export const ZWanjiAction = z.discriminatedUnion('action', [
  z.object({ action: z.literal('switch'), module: ZModuleKey, rule: ZRuleKey, enable: z.boolean() }),
  /** A DDNS task synced now (forced). */
  z.object({ action: z.literal('sync'), rule: ZRuleKey }),
  /** A wake-on-LAN device of that Lucky woken. */
  z.object({ action: z.literal('wake'), rule: ZRuleKey }),
  z.object({ action: z.literal('restart') }),
]);
export type WanjiAction = z.infer<typeof ZWanjiAction>;

/** One device's part of a fleet action. */
export const ZWanjiDeviceResult = z.object({
  device: ZRuleKey,
  name: z.string(),
  ok: z.boolean(),
  /** What happened, in the reader's language. */
  msg: z.string(),
  /** The rule's key on that device (push), empty otherwise. */
  remoteKey: z.string(),
});
export type WanjiDeviceResult = z.infer<typeof ZWanjiDeviceResult>;

export const ZWanjiPush = z.object({
  module: ZModuleKey,
  /** The rule as that module's create takes it; a rule of the same name there is replaced (its secrets kept where masked). */
  rule: z.record(z.string(), z.unknown()),
  devices: z.array(ZRuleKey).min(1, { error: msgKey('wanjiNoDevices') }).max(500),
});

export const WANJI_COMPARE_STATES = ['same', 'different', 'onlyA', 'onlyB'] as const;
export const ZWanjiCompareRow = z.object({
  name: z.string(),
  state: z.enum(WANJI_COMPARE_STATES),
  /** Fields that differ (secrets are never compared: both sides show them masked). */
  fields: z.array(z.string()),
  a: z.record(z.string(), z.unknown()).nullable(),
  b: z.record(z.string(), z.unknown()).nullable(),
});
export type WanjiCompareRow = z.infer<typeof ZWanjiCompareRow>;

export const ZWanjiVersionResult = ZWanjiDeviceResult.extend({ version: z.string(), behind: z.boolean() });

const ZDevices = z.array(ZRuleKey).max(500).default([]);

export const wanjiContract = moduleContract(
  'wanji',
  { input: ZWanjiDevice, view: ZWanjiDeviceView, configure: ZWanjiConfigure },
  {
    test: route({
      method: 'POST',
      path: '/api/wanji/test',
      summary: "Check a device as the form has it (a masked token stands for the saved device's): reachable, its version, what its token may do",
      module: 'wanji',
      body: z.object({ key: ZRuleKey.optional(), device: ZWanjiDevice }),
      response: ok({ msg: z.string(), version: z.string(), hostname: z.string(), scope: ZApiTokenScope, ms: z.number() }),
    }),
    refresh: route({
      method: 'POST',
      path: '/api/wanji/refresh',
      summary: 'Poll every device now; answers when all have answered or after `wait` seconds (done: false while polls go on)',
      module: 'wanji',
      query: z.object({ wait: z.coerce.number().min(0).max(120).default(4) }),
      response: ok({ done: z.boolean(), ms: z.number(), devices: z.number(), online: z.number() }),
    }),
    remoteRules: route({
      method: 'GET',
      path: '/api/wanji/rules/:key/remote',
      summary: "A device's rules of one module with their statuses (read from the device now)",
      module: 'wanji',
      params: ZRuleParams,
      query: z.object({ module: ZModuleKey }),
      response: ok({ list: z.array(ZWanjiRemoteRule) }),
    }),
    action: route({
      method: 'POST',
      path: '/api/wanji/rules/:key/action',
      summary: 'Do something on a device: switch a rule, sync a DDNS task, wake a WOL device, restart; written to the audit log',
      module: 'wanji',
      params: ZRuleParams,
      body: ZWanjiAction,
      response: ok({ msg: z.string() }),
    }),
    backup: route({
      method: 'GET',
      path: '/api/wanji/backup',
      summary: "Download a device's backup (without secrets; needs a full-scope token there)",
      module: 'wanji',
      raw: 'download',
      query: z.object({ device: ZRuleKey }),
      response: z.record(z.string(), z.unknown()),
    }),
    push: route({
      method: 'POST',
      path: '/api/wanji/push',
      summary: 'Create a rule on several devices (replacing one of the same name), with a result per device',
      module: 'wanji',
      body: ZWanjiPush,
      response: ok({ results: z.array(ZWanjiDeviceResult) }),
    }),
    compare: route({
      method: 'GET',
      path: '/api/wanji/compare',
      summary: "One module's rules on two devices side by side, matched by name",
      module: 'wanji',
      query: z.object({ module: ZModuleKey, a: ZRuleKey, b: ZRuleKey }),
      response: ok({ rows: z.array(ZWanjiCompareRow) }),
    }),
    versions: route({
      method: 'POST',
      path: '/api/wanji/versions',
      summary: 'Ask devices (all when none named) for their version now; `behind` when a newer one runs here or elsewhere in the fleet',
      module: 'wanji',
      body: z.object({ devices: ZDevices }),
      response: ok({ newest: z.string(), own: z.string(), results: z.array(ZWanjiVersionResult) }),
    }),
  },
);
export const wanjiRoutes = wanjiContract.routes;

/** Orders two versions (`1.2.10` after `1.2.9`, `1.2.0-beta` before `1.2.0`); a version without numbers comes first. */
export function compareVersions(a: string, b: string): number {
  const split = (v: string) => {
    const m = /^v?(\d+(?:\.\d+)*)(.*)$/i.exec(v.trim());
    return m ? { nums: m[1]!.split('.').map(Number), rest: m[2]! } : { nums: [] as number[], rest: v };
  };
  const x = split(a);
  const y = split(b);
  if ((x.nums.length === 0) !== (y.nums.length === 0)) return x.nums.length === 0 ? -1 : 1;
  for (let i = 0; i < Math.max(x.nums.length, y.nums.length); i++) {
    const d = (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  if (x.rest === y.rest) return 0;
  // A release (no suffix) comes after its pre-releases; build metadata (+…) is not ordered.
  const pre = (r: string) => r !== '' && !r.startsWith('+');
  if (pre(x.rest) !== pre(y.rest)) return pre(x.rest) ? -1 : 1;
  return x.rest < y.rest ? -1 : 1;
}
