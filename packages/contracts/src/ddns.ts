/**
 * Dynamic DNS: tasks that keep DNS records of one or more domains equal to this host's public
 * IPv4/IPv6 addresses, through a DNS provider's API, a callback URL or RFC 2136 updates.
 */
import { z } from 'zod';
import { ok } from './envelope.js';
import { checkHeaders, checkProxy, checkWebhook, NO_PROXY, ZHttpMethod, ZHttpProxy, ZLines, ZSuccessCheck, ZWebhook, type HttpProxy } from './http.js';
import { msgKey } from './i18n.js';
import { isIP, parseHostPort } from './net.js';
import { route } from './route.js';
import { moduleContract, ruleView, ZRuleKey, ZRuleParams } from './rules.js';
import { SECRET_MASK, secret } from './secrets.js';

/** Providers, each with its own file in the daemon. */
export const DDNS_PROVIDERS = [
  'cloudflare',
  'alidns',
  'dnspod',
  'huaweicloud',
  'baiducloud',
  'porkbun',
  'godaddy',
  'namesilo',
  'namecheap',
  'dynv6',
  'duckdns',
  'desec',
  'vercel',
  'callback',
  'rfc2136',
] as const;
export const ZDdnsProviderName = z.enum(DDNS_PROVIDERS);
export type DdnsProviderName = z.infer<typeof ZDdnsProviderName>;

/** What each provider's credential fields mean, which are required, its minimum TTL and IPv6 support. */
export interface DdnsProviderInfo {
  /** Label of `id`, or null when the provider has no id field. */
  id: string | null;
  /** Label of `secret`, or null when the provider has no secret. */
  secret: string | null;
  /** Label of `server` (RFC 2136 only). */
  server?: string;
  /** `id` may stay empty (an optional account/team id). */
  idOptional?: boolean;
  minTtl: number;
  defaultTtl: number;
  ipv6: boolean;
  /** Sets and removes TXT records (ACME DNS-01). */
  txt?: boolean;
}
export const DDNS_PROVIDER_INFO: Record<DdnsProviderName, DdnsProviderInfo> = {
  cloudflare: { id: null, secret: 'API token', minTtl: 1, defaultTtl: 1, ipv6: true, txt: true },
  alidns: { id: 'AccessKey ID', secret: 'AccessKey Secret', minTtl: 600, defaultTtl: 600, ipv6: true, txt: true },
  dnspod: { id: 'SecretId', secret: 'SecretKey', minTtl: 600, defaultTtl: 600, ipv6: true, txt: true },
  huaweicloud: { id: 'Access Key ID', secret: 'Secret Access Key', minTtl: 1, defaultTtl: 300, ipv6: true, txt: true },
  baiducloud: { id: 'Access Key ID', secret: 'Secret Access Key', minTtl: 300, defaultTtl: 300, ipv6: true, txt: true },
  porkbun: { id: 'API key', secret: 'Secret API key', minTtl: 600, defaultTtl: 600, ipv6: true, txt: true },
  godaddy: { id: 'Key', secret: 'Secret', minTtl: 600, defaultTtl: 600, ipv6: true, txt: true },
  namesilo: { id: null, secret: 'API key', minTtl: 3600, defaultTtl: 3600, ipv6: true, txt: true },
  namecheap: { id: null, secret: 'Dynamic DNS password', minTtl: 60, defaultTtl: 60, ipv6: false },
  dynv6: { id: null, secret: 'HTTP token', minTtl: 60, defaultTtl: 60, ipv6: true },
  duckdns: { id: null, secret: 'Token', minTtl: 60, defaultTtl: 60, ipv6: true, txt: true },
  desec: { id: null, secret: 'Token', minTtl: 3600, defaultTtl: 3600, ipv6: true, txt: true },
  vercel: { id: 'Team ID', secret: 'Token', idOptional: true, minTtl: 60, defaultTtl: 60, ipv6: true, txt: true },
  callback: { id: null, secret: null, minTtl: 1, defaultTtl: 600, ipv6: true },
  rfc2136: { id: 'TSIG key name', secret: 'TSIG secret (base64)', server: 'Server (host:port)', minTtl: 1, defaultTtl: 300, ipv6: true, txt: true },
};

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

export const ZDdnsCredentials = z.object({
  id: z.string().trim().max(512).default(''),
  secret: secret(z.string().max(4096)).default(''),
  /** RFC 2136: the server to update, host:port. */
  server: z.string().trim().max(256).default(''),
  /** RFC 2136: TSIG algorithm. */
  algorithm: z.enum(['hmac-sha256', 'hmac-sha512', 'hmac-sha1']).default('hmac-sha256'),
});
export type DdnsCredentials = z.infer<typeof ZDdnsCredentials>;

/** The task's fields; `ZDdnsTask` adds the checks between fields. */
export const ZDdnsTaskBase = z.object({
    name: z.string().trim().min(1, { error: msgKey('cannotBeEmpty') }).max(64),
    enable: z.boolean().default(true),
    mode: z.enum(['easy', 'customized']).default('easy'),
    recordType: z.enum(['A', 'AAAA', 'both']).default('A'),
    provider: ZDdnsProviderName,
    credentials: ZDdnsCredentials.default({ id: '', secret: '', server: '', algorithm: 'hmac-sha256' }),
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
    if (info.id && !info.idOptional && t.credentials.id === '') empty(['credentials', 'id']);
    if (info.secret && t.credentials.secret === '') empty(['credentials', 'secret']);
    if (info.server) {
      if (t.credentials.server === '') empty(['credentials', 'server']);
      else if (!parseHostPort(t.credentials.server, 53)) {
        ctx.addIssue({ code: 'custom', path: ['credentials', 'server'], message: msgKey('invalidIp') });
      }
    }
    // The console checks a form that shows a stored secret as the mask with this same schema; the
    // daemon never sees the mask here (restoreSecrets puts the stored value back first).
    if (t.provider === 'rfc2136' && t.credentials.secret !== '' && t.credentials.secret !== SECRET_MASK) {
      if (!/^[A-Za-z0-9+/]+={0,2}$/.test(t.credentials.secret)) {
        ctx.addIssue({ code: 'custom', path: ['credentials', 'secret'], message: msgKey('ddnsInvalidBase64') });
      }
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
    summary: 'Providers with their credential fields and limits; webhook and callback presets',
    module: 'ddns',
    response: ok({
      providers: z.array(
        z.object({
          name: ZDdnsProviderName,
          id: z.string().nullable(),
          secret: z.string().nullable(),
          server: z.string().optional(),
          idOptional: z.boolean().optional(),
          minTtl: z.number(),
          defaultTtl: z.number(),
          ipv6: z.boolean(),
        }),
      ),
      webhookPresets: z.record(z.string(), ZDdnsWebhook.partial()),
      callbackPresets: z.record(z.string(), ZDdnsCallback.partial()),
    }),
  }),
});
/** The console's route table of DDNS: the uniform rule routes and the module's own. */
export const ddnsRoutes = ddnsContract.routes;
export { ZRuleKey as ZDdnsTaskKey };
