/**
 * Web services: a rule is a listener (HTTP or HTTPS on one address and port); sub rules pick a
 * service by the request's host (exact, then `*.wildcard`, then the rule's default service).
 */
import { z } from 'zod';
import { isAcmeDomain } from './acme.js';
import { ok } from './envelope.js';
import { msgKey } from './i18n.js';
import { isIP, ZCidr, ZListenHost, ZNonEmpty, ZPort } from './net.js';
import { route } from './route.js';
import { moduleContract, ruleView, ZRuleParams } from './rules.js';
import { secret } from './secrets.js';

/** Spec section 9: the console's default CORS methods. */
export const DEFAULT_CORS_METHODS = ['POST', 'GET', 'PUT', 'OPTIONS', 'DELETE'] as const;
export const DEFAULT_CLIENT_IP_HEADERS = ['X-Forwarded-For', 'X-Real-IP'] as const;
/** Spec section 5: access log capacity 0-102400, latest 1-256 shown. */
export const WEB_ACCESS_LOG_MAX = 102400;
export const WEB_ACCESS_LOG_SHOW_MAX = 256;

const DOMAIN_RE = /^(\*\.)?([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/;
/** `example.com`, `*.example.com`, or an IP address (requests by address). Lower-cased. */
export function isWebDomain(s: string): boolean {
  return DOMAIN_RE.test(s) || isIP(s);
}
export const ZWebDomain = z
  .string()
  .trim()
  .toLowerCase()
  .min(1, { error: msgKey('cannotBeEmpty') })
  .max(253)
  .refine(isWebDomain, { error: msgKey('invalidDomain') });

const ZHeaderName = z.string().trim().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, { error: msgKey('invalidHeader') });
/** A header value may not carry line breaks (response splitting). */
const ZHeaderValue = z.string().max(4096).refine((s) => !/[\r\n\0]/.test(s), { error: msgKey('invalidHeader') });
export const ZWebHeader = z.object({ name: ZHeaderName, value: ZHeaderValue });

/** An http(s):// backend URL (a proxy's target, a published service's LAN target). */
export const ZBackendUrl = z
  .string()
  .trim()
  .min(1, { error: msgKey('cannotBeEmpty') })
  .refine(
    (s) => {
      try {
        const u = new URL(s);
        return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '' && !u.username && !u.password;
      } catch {
        return false;
      }
    },
    { error: msgKey('invalidBackend') },
  );

/**
 * Basic auth user. `password` is plain text on input and an scrypt hash once stored; answers show the
 * mask. The mask or an empty password keeps the stored password of the same user.
 */
export const ZWebUser = z.object({
  user: ZNonEmpty.max(128).refine((s) => !s.includes(':'), { error: msgKey('invalidUser') }),
  password: secret(z.string().max(1024), { hash: true }).default(''),
});

export const ZWebBasicAuth = z.object({
  enable: z.boolean().default(false),
  realm: z.string().max(128).refine((s) => !/["\r\n]/.test(s)).default('Lucky'),
  users: z.array(ZWebUser).max(64).default([]),
});

/**
 * Lucky login (the login portal, module `portal`): a request needs a portal session, else the
 * browser is sent to the rule's own login page. With basic auth on as well, either one lets a
 * request through (apps and scripts keep their Authorization header).
 */
export const ZWebPortal = z.object({
  enable: z.boolean().default(false),
  /** The header the proxied app gets the user's name in (any such header the client sent is dropped); empty = none. */
  userHeader: z.union([z.literal(''), ZHeaderName]).default('Remote-User'),
});

/**
 * Forward auth: an external authorizer (Authelia, Authentik, oauth2-proxy...) is asked first with a
 * sub-request carrying the original method, URL and headers; a 2xx lets the request through with
 * the headers the authorizer names copied to the upstream, anything else is its answer to the client.
 */
export const ZWebForwardAuth = z.object({
  enable: z.boolean().default(false),
  /** `http://authelia:9091/api/authz/forward-auth`, `http://127.0.0.1:4180/oauth2/auth`. */
  url: z.union([z.literal(''), ZBackendUrl]).default(''),
  /** Headers of the authorizer's 2xx answer set on the upstream request (any the client sent dropped). */
  copyHeaders: z.array(ZHeaderName).max(32).default(['Remote-User', 'Remote-Groups', 'Remote-Email', 'Remote-Name']),
  timeoutSeconds: z.number().int().min(1).max(60).default(10),
  skipTlsVerify: z.boolean().default(false),
});

/**
 * Limits per client address on the whole rule: answered 429 with Retry-After (requests, connections)
 * or 413 (body), and counted under those codes in the rule's figures. 0 = no limit.
 */
export const ZWebLimits = z.object({
  /** Requests per second one address may make, on average (a token bucket). */
  rate: z.number().min(0).max(1_000_000).default(0),
  /** Requests it may make at once beyond the rate before it must wait (the bucket's depth). */
  burst: z.number().int().min(0).max(1_000_000).default(20),
  /** Connections one address may hold open to the rule at once. */
  connections: z.number().int().min(0).max(100_000).default(0),
  /** The largest request body in bytes. */
  maxBodyBytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
});
export type WebLimits = z.infer<typeof ZWebLimits>;

export const ZFilterMode = z.enum(['off', 'blacklist', 'whitelist']);
export const ZWebIpFilter = z.object({
  mode: ZFilterMode.default('off'),
  list: z.array(ZCidr).max(1024).default([]),
});
export const ZWebUaFilter = z.object({
  mode: ZFilterMode.default('off'),
  /** Case-insensitive substrings of the User-Agent header. */
  list: z.array(z.string().trim().min(1).max(256)).max(256).default([]),
});

export const ZWebCache = z.object({
  enable: z.boolean().default(false),
  /** Total bytes kept for this rule or sub rule. */
  maxBytes: z.number().int().min(1024).max(1024 * 1024 * 1024).default(32 * 1024 * 1024),
  /** Larger responses are passed through and not kept. */
  maxEntryBytes: z.number().int().min(1).max(64 * 1024 * 1024).default(1024 * 1024),
  /** Lifetime when the backend gives no max-age. */
  ttlSeconds: z.number().int().min(1).max(7 * 86400).default(60),
});

export const ZWebCors = z.object({
  enable: z.boolean().default(false),
  /** `*` for any origin. */
  origins: z.array(z.string().trim().min(1).max(256)).max(64).default(['*']),
  methods: z.array(z.string().trim().toUpperCase().regex(/^[A-Z]+$/)).min(1).max(16).default([...DEFAULT_CORS_METHODS]),
  headers: z.array(ZHeaderName).max(64).default([]),
  credentials: z.boolean().default(false),
  maxAgeSeconds: z.number().int().min(0).max(86400).default(600),
});

export const ZWebRobots = z.object({
  enable: z.boolean().default(false),
  text: z.string().max(65536).default('User-agent: *\nDisallow: /\n'),
});

/** Settings a rule and each sub rule may have. */
const accessShape = {
  basicAuth: ZWebBasicAuth.prefault({}),
  portal: ZWebPortal.prefault({}),
  forwardAuth: ZWebForwardAuth.prefault({}),
  ipFilter: ZWebIpFilter.prefault({}),
  uaFilter: ZWebUaFilter.prefault({}),
  cache: ZWebCache.prefault({}),
  cors: ZWebCors.prefault({}),
  robots: ZWebRobots.prefault({}),
};

export const ZWebHealthCheck = z.object({
  enable: z.boolean().default(false),
  path: z.string().trim().startsWith('/').max(1024).default('/'),
  intervalSeconds: z.number().int().min(1).max(3600).default(10),
  timeoutSeconds: z.number().int().min(1).max(60).default(3),
});

export const ZProxyService = z.object({
  type: z.literal('proxy'),
  targets: z.array(ZBackendUrl).min(1, { error: msgKey('cannotBeEmpty') }).max(64),
  balance: z.enum(['roundrobin', 'leastconn', 'iphash']).default('roundrobin'),
  /** Passive checks: a backend that fails `maxFails` times is skipped for `failTimeoutSeconds`. */
  maxFails: z.number().int().min(1).max(100).default(1),
  failTimeoutSeconds: z.number().int().min(1).max(3600).default(10),
  healthCheck: ZWebHealthCheck.prefault({}),
  websocket: z.boolean().default(true),
  /** A websocket (or other upgraded connection) with no bytes either way for this long is closed; 0 = never. */
  websocketIdleSeconds: z.number().int().min(0).max(86_400).default(0),
  /** Send the client's Host to the backend instead of the backend's own. */
  useRequestHost: z.boolean().default(true),
  skipTlsVerify: z.boolean().default(false),
  /** X-Forwarded-For/-Proto/-Host and X-Real-IP. */
  forwardedHeaders: z.boolean().default(true),
  requestHeaders: z.array(ZWebHeader).max(64).default([]),
  responseHeaders: z.array(ZWebHeader).max(64).default([]),
  /** How long the backend may take to answer, and the longest pause inside an answer (an event stream quiet for longer is cut). */
  timeoutSeconds: z.number().int().min(1).max(3600).default(60),
});

const ZTemplate = z.string().trim().min(1, { error: msgKey('cannotBeEmpty') }).max(2048);
export const ZRedirectService = z.object({
  type: z.literal('redirect'),
  code: z.union([z.literal(301), z.literal(302), z.literal(307), z.literal(308)]).default(302),
  /** `{host}`, `{port}`, `{hostAndPort}`, `{path}` (path and query) are filled in. */
  target: ZTemplate,
});
/** URL jump: an HTML page that sends the browser on (address bar changes on the client side). */
export const ZJumpService = z.object({ type: z.literal('jump'), target: ZTemplate });
export const ZFileService = z.object({
  type: z.literal('file'),
  root: ZNonEmpty.max(4096),
  listing: z.boolean().default(false),
  index: z.array(z.string().trim().regex(/^[^/\\]+$/)).max(8).default(['index.html']),
});
export const ZTextService = z.object({
  type: z.literal('text'),
  status: z.number().int().min(200).max(599).default(200),
  contentType: ZHeaderValue.default('text/plain; charset=utf-8'),
  /** `{clientIP}`, `{host}`, `{path}`, `{method}`, `{userAgent}`, `{time}` are filled in. */
  body: z.string().max(1024 * 1024).default(''),
});
export const ZCloseService = z.object({ type: z.literal('close') });

export const ZWebService = z.discriminatedUnion('type', [
  ZProxyService,
  ZRedirectService,
  ZJumpService,
  ZFileService,
  ZTextService,
  ZCloseService,
]);
export type WebService = z.infer<typeof ZWebService>;
export type WebServiceType = WebService['type'];

export const ZWebSubRule = z.object({
  name: z.string().trim().max(64).default(''),
  enable: z.boolean().default(true),
  /** Spec section 5: cannot be empty. */
  domains: z.array(ZWebDomain).min(1, { error: msgKey('cannotBeEmpty') }).max(256),
  service: ZWebService,
  ...accessShape,
});
export type WebSubRule = z.infer<typeof ZWebSubRule>;

const certShape = {
  /** PEM text, a file path when `source` is `file`, or the name of a certificate of the store (`store`: the certificates module). */
  source: z.enum(['pem', 'file', 'store']).default('pem'),
  cert: z.string().trim().max(256 * 1024).default(''),
  /** The private key (PEM, or its file's path): answers show the mask, which keeps the stored key. Empty for `store` and `auto`. */
  key: secret(z.string().trim().max(256 * 1024)).default(''),
  /** Names this certificate serves; empty = the names inside the certificate. */
  domains: z.array(ZWebDomain).max(256).default([]),
};

const checkCert = (c: { source: string; cert: string; key: string }, ctx: z.RefinementCtx) => {
  if (c.source !== 'auto' && c.cert === '') ctx.addIssue({ code: 'custom', path: ['cert'], message: msgKey('cannotBeEmpty') });
  if ((c.source === 'pem' || c.source === 'file') && c.key === '') ctx.addIssue({ code: 'custom', path: ['key'], message: msgKey('cannotBeEmpty') });
};

/** A certificate of a TLS listener (WebDAV, FTPS): its text, its files, or one of the store by name. */
export const ZTlsCert = z.object(certShape).superRefine(checkCert);
export type TlsCertInput = z.infer<typeof ZTlsCert>;

/**
 * A web rule's certificate: as any listener's, or `auto`: ordered and renewed by the certificates
 * module for the rule's names (automatic HTTPS; `domains` empty = the sub rules' full names).
 */
export const ZWebCert = z
  .object({
    ...certShape,
    source: z.enum(['pem', 'file', 'store', 'auto']).default('pem'),
    /** `auto`: how the CA checks the names (`dns-01` for `*.` names, through a DDNS task's provider). */
    challenge: z.enum(['http-01', 'dns-01']).default('http-01'),
    /** `auto` with `dns-01`: the DDNS task whose provider writes the TXT records. */
    dnsTask: z.string().trim().max(64).default(''),
  })
  .superRefine((c, ctx) => {
    checkCert(c, ctx);
    if (c.source === 'auto' && c.challenge === 'dns-01' && c.dnsTask === '') ctx.addIssue({ code: 'custom', path: ['dnsTask'], message: msgKey('cannotBeEmpty') });
  });
export type WebCert = z.infer<typeof ZWebCert>;

export const ZWebRule = z.object({
  name: ZNonEmpty.max(64),
  enable: z.boolean().default(true),
  network: z.enum(['tcp4', 'tcp6']).default('tcp4'),
  protocol: z.enum(['http', 'https']).default('http'),
  /** Empty = every address of the network type. */
  address: ZListenHost.default(''),
  port: ZPort,
  /** Add an nftables accept rule for the port while the rule runs (when permitted). */
  firewallAllow: z.boolean().default(false),
  minTls: z.enum(['1.0', '1.1', '1.2', '1.3']).default('1.2'),
  /** HTTPS: offer HTTP/2 by ALPN (HTTP/1.1 stays for clients that do not ask for it). */
  http2: z.boolean().default(true),
  certs: z.array(ZWebCert).max(64).default([]),
  /**
   * HTTPS: a plain-HTTP companion listening on this port (0: none) that sends browsers on to HTTPS
   * (308, same host and path) and answers ACME HTTP-01 challenges for the rule's automatic certificate.
   */
  httpRedirectPort: z.number().int().min(0).max(65535).default(0),
  /** Where the companion sends browsers: the HTTPS port as seen from outside (a router forwarding 443 here); 0: the rule's own port. */
  redirectToPort: z.number().int().min(0).max(65535).default(0),
  defaultService: ZWebService.default({ type: 'text', status: 404, contentType: 'text/plain; charset=utf-8', body: 'not found\n' }),
  subRules: z.array(ZWebSubRule).max(512).default([]),
  ...accessShape,
  limits: ZWebLimits.prefault({}),
  /** Peers whose client-IP headers are believed. */
  trustedProxies: z.array(ZCidr).max(256).default([]),
  clientIpHeaders: z.array(ZHeaderName).max(8).default([...DEFAULT_CLIENT_IP_HEADERS]),
  accessLog: z
    .object({ capacity: z.number().int().min(0).max(WEB_ACCESS_LOG_MAX).default(1024) })
    .prefault({}),
  note: z.string().max(512).default(''),
});
export type WebRule = z.infer<typeof ZWebRule>;
export type WebRuleInput = z.input<typeof ZWebRule>;

/** A web rule's automatic certificate: the first `auto` entry of an HTTPS rule (one serves every name). */
export function autoCertOf(rule: Pick<WebRule, 'protocol' | 'certs'>): WebCert | undefined {
  return rule.protocol === 'https' ? rule.certs.find((c) => c.source === 'auto') : undefined;
}

/**
 * The names an automatic certificate is ordered for: the entry's own, else the full names of the
 * enabled sub rules (patterns and addresses cannot be certified; `*.` names only through DNS-01),
 * sorted, each once. The daemon orders these; the console shows and checks them.
 */
export function autoCertNames(rule: Pick<WebRule, 'subRules'>, cert: Pick<WebCert, 'domains' | 'challenge'>): string[] {
  const wanted = cert.domains.length ? cert.domains : rule.subRules.filter((s) => s.enable).flatMap((s) => s.domains);
  const names = wanted.map((d) => d.toLowerCase()).filter((d) => isAcmeDomain(d) && (cert.challenge === 'dns-01' || !d.startsWith('*.')));
  return [...new Set(names)].sort();
}

export { WEB_DURATION_BUCKETS } from './webbuckets.js';

export const ZWebFigures = z.object({
  requests: z.number(),
  bytesIn: z.number(),
  bytesOut: z.number(),
  connections: z.number(),
  /** Responses by status code, e.g. `{"200": 10, "404": 1}`; `"0"` counts requests closed before an answer. */
  codes: z.record(z.string(), z.number()),
  /**
   * On the native data plane: requests it answered itself (`native`) and those it passed to the rule's
   * Node server (`node`: files, cache, login, CORS...). Absent when Node serves the rule alone.
   */
  engine: z.object({ native: z.number(), node: z.number() }).optional(),
  /**
   * Requests by time from their head to the end of the answer: `counts[i]` those within
   * WEB_DURATION_BUCKETS[i] (and above the bucket before), one count more for those past the last;
   * `seconds` all of their times added up.
   */
  duration: z.object({ counts: z.array(z.number()), seconds: z.number() }).optional(),
});
export type WebFigures = z.infer<typeof ZWebFigures>;

export const ZWebRuleView = ruleView(ZWebRule, {
  figures: ZWebFigures,
  /** What the firewall switch did (opened, off, or why nothing was done), in the caller's language. */
  firewall: z.string(),
});
export type WebRuleView = z.infer<typeof ZWebRuleView>;

export const WEB_SERVING_THREADS_MAX = 16;

export const ZWebConfigure = z.object({
  /** How many access log lines the console shows (1-256). */
  accessLogShow: z.number().int().min(1).max(WEB_ACCESS_LOG_SHOW_MAX).default(50),
  /**
   * Threads that serve the rules: 0 = automatic (LUCKY_WEB_THREADS when set; else, on the native
   * data plane, one thread per CPU, at most 4, from the start (a few hundred KB each); on the Node
   * path, the main thread, moving to one thread per CPU, at most 4, once it stays busy), 1-16 = that
   * many serving threads, for good. A Node serving thread costs about 10 MB.
   */
  servingThreads: z.number().int().min(0).max(WEB_SERVING_THREADS_MAX).default(0),
  /**
   * The Node path serves on the daemon's main thread only, never on serving threads (the least
   * memory, the least throughput). The native data plane has no main-thread mode: it still runs
   * `servingThreads` threads (0: one per CPU, at most 4).
   */
  mainThreadOnly: z.boolean().default(false),
});
export type WebConfigure = z.infer<typeof ZWebConfigure>;

/**
 * Web settings saved before `mainThreadOnly` existed (they lack the field): `servingThreads: 1` then
 * meant the main thread on the Node path and one thread on the native data plane, which is what
 * `1` with `mainThreadOnly` means now. Every other count meant what it means now.
 */
export function upgradeWebConfigure(stored: unknown): unknown {
  if (!stored || typeof stored !== 'object' || Array.isArray(stored) || 'mainThreadOnly' in stored) return stored;
  return { ...stored, mainThreadOnly: (stored as { servingThreads?: unknown }).servingThreads === 1 };
}

export const ZWebAccessEntry = z.object({
  time: z.number(),
  clientIP: z.string(),
  method: z.string(),
  host: z.string(),
  path: z.string(),
  status: z.number(),
  bytes: z.number(),
  ms: z.number(),
  userAgent: z.string(),
  /** The sub rule that answered, '' for the default service. */
  sub: z.string(),
});
export type WebAccessEntry = z.infer<typeof ZWebAccessEntry>;

export const ZWebDomainReplace = z.object({
  from: ZWebDomain,
  to: ZWebDomain,
  /** Only these rules; empty = all. */
  keys: z.array(z.string()).max(1024).default([]),
});

export const webContract = moduleContract(
  'web',
  { input: ZWebRule, view: ZWebRuleView, configure: ZWebConfigure, upgradeSettings: upgradeWebConfigure },
  {
    accessLog: route({
      method: 'GET',
      path: '/api/web/rules/:key/accesslog',
      summary: "A web rule's latest access log entries, newest last",
      module: 'web',
      params: ZRuleParams,
      query: z.object({ limit: z.coerce.number().int().min(1).max(WEB_ACCESS_LOG_SHOW_MAX).optional() }),
      response: ok({ list: z.array(ZWebAccessEntry), total: z.number() }),
    }),
    replaceDomain: route({
      method: 'POST',
      path: '/api/web/domains/replace',
      summary: 'Replace one frontend domain with another across sub rules',
      module: 'web',
      body: ZWebDomainReplace,
      response: ok({ changed: z.number(), rules: z.number() }),
    }),
  },
);
export const webRoutes = webContract.routes;
