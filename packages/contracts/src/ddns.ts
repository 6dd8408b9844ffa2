/**
 * Dynamic DNS: tasks that keep DNS records of one or more domains equal to this host's public
 * IPv4/IPv6 addresses, through a DNS provider's API, a callback URL or RFC 2136 updates.
 */
import { z } from 'zod';
import { ok } from './envelope.js';
import { checkHeaders, checkProxy, checkWebhook, NO_PROXY, ZHttpMethod, ZHttpProxy, ZLines, ZSuccessCheck, ZWebhook, type HttpProxy } from './http.js';
import { MESSAGES, msgKey, type Lang, type MessageKey } from './i18n.js';
import { isIP, parseHostPort } from './net.js';
import { route } from './route.js';
import { moduleContract, ruleView, ZRuleKey, ZRuleParams } from './rules.js';
import { SECRET_MASK, secret } from './secrets.js';
import {
  DNS_CRED_KEYS,
  DNS_PROVIDER_TABLE,
  DNS_REGION_LABEL,
  DNS_REGIONS,
  isSecretField,
  TSIG_ALGORITHMS,
  type DnsCredField,
  type DnsCredKey,
  type DnsProviderDescription,
} from './dnsproviders/index.js';

/** Providers: one description each in dnsproviders/, one client each in the daemon. */
export const DDNS_PROVIDERS = Object.keys(DNS_PROVIDER_TABLE) as [keyof typeof DNS_PROVIDER_TABLE, ...Array<keyof typeof DNS_PROVIDER_TABLE>];
export const ZDdnsProviderName = z.enum(DDNS_PROVIDERS);
export type DdnsProviderName = z.infer<typeof ZDdnsProviderName>;

/** A provider's description: credential fields, TTL limits, record types, group, documentation. */
export type DdnsProviderInfo = DnsProviderDescription;
export const DDNS_PROVIDER_INFO: Record<DdnsProviderName, DdnsProviderInfo> = DNS_PROVIDER_TABLE;

/** A provider as the `providers` route lists it: its description with the texts in the caller's language. */
export const ZDdnsProviderListing = z.object({
  name: ZDdnsProviderName,
  label: z.string(),
  region: z.enum(DNS_REGIONS),
  regionLabel: z.string(),
  docs: z.string(),
  fields: z.array(
    z.object({
      key: z.enum(DNS_CRED_KEYS),
      label: z.string(),
      secret: z.boolean(),
      optional: z.boolean(),
      format: z.enum(['hostport', 'url', 'base64']).optional(),
      options: z.array(z.string()).optional(),
      hint: z.string().optional(),
      placeholder: z.string().optional(),
    }),
  ),
  minTtl: z.number(),
  defaultTtl: z.number(),
  records: z.array(z.enum(['A', 'AAAA', 'TXT', 'SRV', 'HTTPS'])),
  read: z.boolean(),
  delete: z.boolean(),
  ipv6: z.boolean(),
  txt: z.boolean(),
  /** The labels of `id`, `secret` and `server` (null or absent where the provider has none), as before `fields`. */
  id: z.string().nullable(),
  secret: z.string().nullable(),
  server: z.string().optional(),
  idOptional: z.boolean().optional(),
});
export type DdnsProviderListing = z.infer<typeof ZDdnsProviderListing>;

/** The listing of a provider in a language (the daemon's `providers` route; the console before it answered). */
export function ddnsProviderListing(name: DdnsProviderName, lang: Lang): DdnsProviderListing {
  const d = DDNS_PROVIDER_INFO[name];
  const text = (key: MessageKey) => MESSAGES[lang][key];
  const labelOf = (key: DnsCredKey) => {
    const f = d.fields.find((x) => x.key === key);
    return f ? text(f.label) : null;
  };
  const server = labelOf('server');
  const idField = d.fields.find((x) => x.key === 'id');
  return {
    name,
    label: text(d.label),
    region: d.region,
    regionLabel: text(DNS_REGION_LABEL[d.region]),
    docs: d.docs,
    fields: d.fields.map((f) => ({
      key: f.key,
      label: text(f.label),
      secret: isSecretField(f),
      optional: f.optional ?? false,
      ...(f.format ? { format: f.format } : {}),
      ...(f.options ? { options: [...f.options] } : {}),
      ...(f.hint ? { hint: text(f.hint) } : {}),
      ...(f.placeholder ? { placeholder: f.placeholder } : {}),
    })),
    minTtl: d.minTtl,
    defaultTtl: d.defaultTtl,
    records: [...d.records],
    read: d.read,
    delete: d.delete,
    ipv6: d.ipv6,
    txt: d.txt,
    id: labelOf('id'),
    secret: labelOf('secret'),
    ...(server ? { server } : {}),
    ...(idField?.optional ? { idOptional: true } : {}),
  };
}

function validRegex(s: string): boolean {
  if (s === '' || /^@\d+$/.test(s)) return true;
  try {
    new RegExp(s);
    return true;
  } catch {
    return false;
  }
}
const ZRegex = z.string().max(512).refine(validRegex, { error: msgKey('ddnsInvalidRegex') });

export const ZDdnsIpSourceType = z.enum(['url', 'interface', 'command', 'odhcpd']);
export const ZDdnsIpSource = z.object({
  type: ZDdnsIpSourceType.default('url'),
  /** URLs tried in order; the first address the regex finds wins. Empty: the built-in list. */
  urls: ZLines.default([]),
  /** Pulls the address out of the answer or command output; empty: the family's default pattern. */
  regex: ZRegex.default(''),
  interface: z.string().trim().max(64).default(''),
  /** Interface rule: empty (first), `@N` (Nth) or a regular expression. */
  rule: ZRegex.default(''),
  command: z.string().max(4096).default(''),
  commandTimeout: z.number().int().min(1).max(120).default(10),
  odhcpdFile: z.string().max(512).default('/tmp/hosts/odhcpd'),
  /** Host name or DUID of the LAN host whose lease is wanted. */
  odhcpdHost: z.string().trim().max(256).default(''),
});
export type DdnsIpSource = z.infer<typeof ZDdnsIpSource>;

/** The proxy of a task's calls (the shared HTTP proxy; the password is a secret). */
export const ZDdnsProxy = ZHttpProxy;
export type DdnsProxy = HttpProxy;

/** A task's webhook: the shared webhook, also called on failures when asked. */
export const ZDdnsWebhook = ZWebhook.extend({
  /** Also call it when an update failed. */
  onFailure: z.boolean().default(false),
});
export type DdnsWebhook = z.infer<typeof ZDdnsWebhook>;

export const CALLBACK_PRESETS = ['custom', 'he', 'noip', 'dynu', 'freedns', 'cloudxns'] as const;
export const ZDdnsCallback = z.object({
  preset: z.enum(CALLBACK_PRESETS).default('custom'),
  /** `#{ip}`, `#{domain}`, `#{recordType}`, `#{ttl}` are substituted. */
  url: z.string().trim().max(2048).default(''),
  method: ZHttpMethod.default('GET'),
  headers: ZLines.default([]),
  body: z.string().max(16384).default(''),
  successCheck: ZSuccessCheck.default({ enable: false, text: '' }),
});
export type DdnsCallback = z.infer<typeof ZDdnsCallback>;

/**
 * A provider account: which fields a provider uses, and what they mean, its description says
 * (dnsproviders/). `secret` and `secret2` are the secret ones.
 */
export const ZDdnsCredentials = z.object({
  id: z.string().trim().max(512).default(''),
  secret: secret(z.string().max(4096)).default(''),
  /** An address: RFC 2136's server (host:port), an update URL, an API endpoint. */
  server: z.string().trim().max(512).default(''),
  /** RFC 2136: TSIG algorithm. */
  algorithm: z.enum(TSIG_ALGORITHMS).default('hmac-sha256'),
  id2: z.string().trim().max(512).default(''),
  id3: z.string().trim().max(512).default(''),
  secret2: secret(z.string().max(4096)).default(''),
});
export const EMPTY_DDNS_CREDENTIALS: DdnsCredentials = { id: '', secret: '', server: '', algorithm: 'hmac-sha256', id2: '', id3: '', secret2: '' };

/** A credential's value against its field: empty where required, or not in its format. */
export function credentialProblem(f: DnsCredField, value: string): MessageKey | null {
  if (value === '') return f.optional ? null : 'cannotBeEmpty';
  // The console checks a form that shows a stored secret as the mask with this same schema; the
  // daemon never sees the mask here (restoreSecrets puts the stored value back first).
  if (value === SECRET_MASK) return null;
  if (f.options && !f.options.includes(value)) return 'ddnsInvalidChoice';
  if (f.format === 'hostport' && !parseHostPort(value, 53)) return 'invalidIp';
  if (f.format === 'url' && !/^https?:\/\/\S+$/i.test(value)) return 'invalidUrl';
  if (f.format === 'base64' && !/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return 'ddnsInvalidBase64';
  return null;
}
export type DdnsCredentials = z.infer<typeof ZDdnsCredentials>;

/** The task's fields; `ZDdnsTask` adds the checks between fields. */
export const ZDdnsTaskBase = z.object({
    name: z.string().trim().min(1, { error: msgKey('cannotBeEmpty') }).max(64),
    enable: z.boolean().default(true),
    mode: z.enum(['easy', 'customized']).default('easy'),
    recordType: z.enum(['A', 'AAAA', 'both']).default('A'),
    provider: ZDdnsProviderName,
    credentials: ZDdnsCredentials.default(EMPTY_DDNS_CREDENTIALS),
    /** One a line: `www.example.com`, `www:example.com` (forced split), `example.com?proxied=true`. */
    domains: ZLines.default([]),
    ipv4: ZDdnsIpSource.default(ZDdnsIpSource.parse({})),
    ipv6: ZDdnsIpSource.default(ZDdnsIpSource.parse({})),
    resolverCheck: z
      .object({
        enable: z.boolean().default(false),
        /** `ip` or `ip:port` / `[v6]:port`. */
        servers: ZLines.default([]),
      })
      .default({ enable: false, servers: [] }),
    /** 0: the provider's default. */
    ttl: z.number().int().min(0).max(86400).default(0),
    forceSync: z.number({ error: msgKey('ddnsForceSyncRange') }).int().min(60, { error: msgKey('ddnsForceSyncRange') }).max(3600, {
      error: msgKey('ddnsForceSyncRange'),
    }).default(3600),
    webhook: ZDdnsWebhook.default(ZDdnsWebhook.parse({})),
    proxy: ZDdnsProxy.default(NO_PROXY),
    httpTimeout: z.number({ error: msgKey('ddnsHttpTimeoutRange') }).int().min(3, { error: msgKey('ddnsHttpTimeoutRange') }).max(60, {
      error: msgKey('ddnsHttpTimeoutRange'),
    }).default(20),
    skipVerify: z.boolean().default(false),
    callback: ZDdnsCallback.default(ZDdnsCallback.parse({})),
  });
export const ZDdnsTask = ZDdnsTaskBase.superRefine((t, ctx) => {
    const empty = (path: (string | number)[]) => ctx.addIssue({ code: 'custom', path, message: msgKey('cannotBeEmpty') });
    if (t.domains.length === 0) empty(['domains']);
    t.domains.forEach((d, i) => {
      if (!/^[^\s?]+(\?.*)?$/.test(d) || d.startsWith('.') || d.includes('..')) {
        ctx.addIssue({ code: 'custom', path: ['domains', i], message: msgKey('ddnsInvalidDomain') });
      }
    });
    const info = DDNS_PROVIDER_INFO[t.provider];
    for (const f of info.fields) {
      const problem = credentialProblem(f, t.credentials[f.key]);
      if (problem) ctx.addIssue({ code: 'custom', path: ['credentials', f.key], message: msgKey(problem) });
    }
    if (!info.ipv6 && t.recordType !== 'A') {
      ctx.addIssue({ code: 'custom', path: ['recordType'], message: msgKey('ddnsNoIpv6') });
    }
    const families = t.recordType === 'both' ? (['ipv4', 'ipv6'] as const) : t.recordType === 'A' ? (['ipv4'] as const) : (['ipv6'] as const);
    for (const f of families) {
      const s = t[f];
      if (s.type === 'interface' && s.interface === '') empty([f, 'interface']);
      if (s.type === 'command' && s.command.trim() === '') empty([f, 'command']);
      if (s.type === 'odhcpd') {
        if (f === 'ipv4') ctx.addIssue({ code: 'custom', path: [f, 'type'], message: msgKey('ddnsOdhcpdIpv6Only') });
        if (s.odhcpdFile.trim() === '') empty([f, 'odhcpdFile']);
        if (s.odhcpdHost === '') empty([f, 'odhcpdHost']);
      }
      s.urls.forEach((u, i) => {
        if (!/^https?:\/\/[^\s]+$/i.test(u)) ctx.addIssue({ code: 'custom', path: [f, 'urls', i], message: msgKey('invalidUrl') });
      });
    }
    if (t.resolverCheck.enable) {
      if (t.resolverCheck.servers.length === 0) empty(['resolverCheck', 'servers']);
      t.resolverCheck.servers.forEach((s, i) => {
        const hp = parseHostPort(s, 53);
        if (!hp || !isIP(hp.host)) ctx.addIssue({ code: 'custom', path: ['resolverCheck', 'servers', i], message: msgKey('invalidIp') });
      });
    }
    checkProxy(t.proxy, ['proxy'], ctx);
    checkWebhook(t.webhook, ['webhook'], ctx);
    if (t.provider === 'callback') {
      if (t.callback.url === '') empty(['callback', 'url']);
      else if (!/^https?:\/\/\S+$/i.test(t.callback.url)) {
        ctx.addIssue({ code: 'custom', path: ['callback', 'url'], message: msgKey('invalidUrl') });
      }
      if (t.callback.successCheck.enable && t.callback.successCheck.text === '') empty(['callback', 'successCheck', 'text']);
      checkHeaders(t.callback.headers, ['callback', 'headers'], ctx);
    }
  });
export type DdnsTask = z.infer<typeof ZDdnsTask>;
export type DdnsTaskInput = z.input<typeof ZDdnsTask>;

/** A webhook checked on its own (global settings, the "test webhook" action). */
export const ZDdnsWebhookChecked = ZDdnsWebhook.superRefine((w, ctx) => checkWebhook(w, [], ctx));

/** The nine sync statuses of the spec. */
export const DDNS_SYNC_STATUSES = [
  'ipSameAsRecord',
  'providerRecordSame',
  'dnsRecordSame',
  'ipUnchanged',
  'updateFailed',
  'updateSucceeded',
  'syncStopped',
  'syncPaused',
  'waitingForSync',
] as const;
export const ZDdnsSyncStatus = z.enum(DDNS_SYNC_STATUSES);
export type DdnsSyncStatus = z.infer<typeof ZDdnsSyncStatus>;

export const ZDdnsRecordState = z.object({
  domain: z.string(),
  type: z.enum(['A', 'AAAA']),
  status: ZDdnsSyncStatus,
  ip: z.string(),
  message: z.string(),
  at: z.number(),
});
export type DdnsRecordState = z.infer<typeof ZDdnsRecordState>;

export const ZDdnsSyncState = z.object({
  /** The task's overall status: the worst of its records. */
  status: ZDdnsSyncStatus,
  ipv4: z.string(),
  ipv6: z.string(),
  lastCheck: z.number().nullable(),
  lastSync: z.number().nullable(),
  message: z.string(),
  records: z.array(ZDdnsRecordState),
});
export type DdnsSyncState = z.infer<typeof ZDdnsSyncState>;

export const ZDdnsTaskView = ruleView(ZDdnsTaskBase, { sync: ZDdnsSyncState });
export type DdnsTaskView = z.infer<typeof ZDdnsTaskView>;

/**
 * Detection-interval presets in seconds, for the settings form (plus "custom"). The spec also lists
 * 1 s, 5 s and 10 s, but its own bound for the interval is 30-3600 s, so those are not offered.
 */
export const DDNS_INTERVAL_PRESETS = [60, 120, 600, 1800, 3600] as const;

export const ZDdnsConfigure = z.object({
  /** Seconds between checks. */
  interval: z.number({ error: msgKey('ddnsIntervalRange') }).int().min(30, { error: msgKey('ddnsIntervalRange') }).max(3600, {
    error: msgKey('ddnsIntervalRange'),
  }).default(300),
  /** Seconds after the daemon starts before the first check. */
  firstDelay: z.number({ error: msgKey('ddnsFirstDelayRange') }).int().min(0, { error: msgKey('ddnsFirstDelayRange') }).max(3600, {
    error: msgKey('ddnsFirstDelayRange'),
  }).default(0),
  /** Tasks synced at the same time. */
  concurrency: z.number().int().min(1).max(256).default(32),
  /** Called for every task's changes unless the task has its own webhook. */
  webhook: ZDdnsWebhookChecked.default(ZDdnsWebhook.parse({})),
});
export type DdnsConfigure = z.infer<typeof ZDdnsConfigure>;

export const ZDdnsHistoryEntry = z.object({
  at: z.number(),
  kind: z.enum(['ip', 'sync', 'webhook']),
  recordType: z.string(),
  domain: z.string(),
  ip: z.string(),
  status: z.string(),
  message: z.string(),
});
export type DdnsHistoryEntry = z.infer<typeof ZDdnsHistoryEntry>;

export const ZDdnsIpTestRequest = z.object({
  family: z.enum(['ipv4', 'ipv6']),
  source: ZDdnsIpSource,
  proxy: ZDdnsProxy.default(NO_PROXY),
  httpTimeout: z.number().int().min(3).max(60).default(10),
  skipVerify: z.boolean().default(false),
});

export const ZDdnsWebhookTestRequest = z.object({
  webhook: ZDdnsWebhookChecked,
  httpTimeout: z.number().int().min(3).max(60).default(10),
  skipVerify: z.boolean().default(false),
});

export const ddnsContract = moduleContract('ddns', { input: ZDdnsTask, view: ZDdnsTaskView, configure: ZDdnsConfigure }, {
  sync: route({
    method: 'POST',
    path: '/api/ddns/rules/:key/sync',
    summary:
      'Sync a task now (forced: the provider is asked even if nothing changed). Answers when done or after `wait` seconds ' +
      '(default 4, under the console\'s 5 s timeout) with `done: false` while it goes on',
    module: 'ddns',
    params: ZRuleParams,
    query: z.object({ wait: z.coerce.number().min(0).max(120).default(4) }),
    response: ok({ msg: z.string(), done: z.boolean(), sync: ZDdnsSyncState }),
  }),
  history: route({
    method: 'GET',
    path: '/api/ddns/rules/:key/history',
    summary: "A task's history: addresses seen, sync results, webhook calls (newest first)",
    module: 'ddns',
    params: ZRuleParams,
    query: z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) }),
    response: ok({ history: z.array(ZDdnsHistoryEntry) }),
  }),
  ipTest: route({
    method: 'POST',
    path: '/api/ddns/iptest',
    summary: 'What an IP source returns now',
    module: 'ddns',
    body: ZDdnsIpTestRequest,
    response: ok({ ip: z.string(), detail: z.string() }),
  }),
  webhookTest: route({
    method: 'POST',
    path: '/api/ddns/webhooktest',
    summary: 'Call a webhook with sample values',
    module: 'ddns',
    body: ZDdnsWebhookTestRequest,
    response: ok({ success: z.boolean(), status: z.number(), body: z.string(), msg: z.string() }),
  }),
  providers: route({
    method: 'GET',
    path: '/api/ddns/providers',
    summary: 'Providers, grouped by region, with their credential fields (labels in the caller\'s language, which are secret), limits, record types and documentation; webhook and callback presets',
    module: 'ddns',
    response: ok({
      providers: z.array(ZDdnsProviderListing),
      webhookPresets: z.record(z.string(), ZDdnsWebhook.partial()),
      callbackPresets: z.record(z.string(), ZDdnsCallback.partial()),
    }),
  }),
});
/** The console's route table of DDNS: the uniform rule routes and the module's own. */
export const ddnsRoutes = ddnsContract.routes;
export { ZRuleKey as ZDdnsTaskKey };
