/**
 * STUN NAT traversal: a rule opens a local port, learns its public address:port from STUN servers,
 * keeps the NAT mapping alive (optionally asking the router by UPnP IGD or NAT-PMP), forwards what
 * arrives to a target, and tells the user and their tools whenever the public address changes.
 */
import { z } from 'zod';
import { ok } from './envelope.js';
import { checkWebhook, ZWebhook } from './http.js';
import { msgKey } from './i18n.js';
import { isIPv4, parseHostPort } from './net.js';
import { isHostName, ZIpFilter, ZPortforwardLimits } from './portforward.js';
import { route } from './route.js';
import { moduleContract, ruleView, ZRuleKey, ZRuleParams } from './rules.js';

export const STUN_DEFAULT_PORT = 3478;

/**
 * The module's first default list: public servers that answer Binding requests over UDP and TCP.
 * Only used by rules of a user who keeps them (tests always name their own).
 */
export const STUN_DEFAULT_SERVERS = ['stun.miwifi.com:3478', 'stun.chat.bilibili.com:3478', 'stun.cloudflare.com:3478', 'stun.l.google.com:19302'];
/** TCP needs a server it can keep a connection open to (see docs/stun.md). */
export const STUN_DEFAULT_KEEPALIVE_URL = 'http://www.baidu.com/';

/** `host[:port]`, the port 3478 when left out. */
export function isStunServer(s: string): boolean {
  const hp = parseHostPort(s, STUN_DEFAULT_PORT);
  return hp !== null && hp.port >= 1 && hp.port <= 65535 && hp.host !== '' && isHostName(hp.host);
}
export const ZStunServer = z.string().trim().refine(isStunServer, { error: msgKey('stunInvalidServer') });
export const ZStunServers = z.array(ZStunServer).max(32);

export const STUN_PROTOCOLS = ['udp', 'tcp'] as const;
export const ZStunProtocol = z.enum(STUN_PROTOCOLS);
export type StunProtocol = z.infer<typeof ZStunProtocol>;

export const ZStunUpnp = z.object({
  enable: z.boolean().default(false),
  /** The gateway's device description URL (http://192.168.1.1:5000/rootDesc.xml); empty = discover by SSDP. */
  gatewayUrl: z.string().trim().max(1024).default(''),
  /** Seconds the router keeps the mapping; renewed at half. 0 = permanent (IGD:1 routers that refuse leases). */
  lease: z.number().int().min(0).max(604_800).default(3600),
});
export type StunUpnp = z.infer<typeof ZStunUpnp>;

export const ZStunNatpmp = z.object({
  enable: z.boolean().default(false),
  /** The router's address; empty = the default route's gateway. */
  gateway: z.string().trim().default(''),
  /** Seconds asked for; renewed at half. */
  lifetime: z.number().int().min(60).max(604_800).default(3600),
});
export type StunNatpmp = z.infer<typeof ZStunNatpmp>;

export const ZStunCommand = z.object({
  enable: z.boolean().default(false),
  /** Run by /bin/sh with LUCKY_STUN_IP, _PORT, _ADDR, _LOCAL_PORT, _PROTOCOL, _RULE in its environment. */
  line: z.string().max(4096).default(''),
  /** Seconds before the whole process group is killed. */
  timeout: z.number().int().min(1).max(3600).default(30),
});
export type StunCommand = z.infer<typeof ZStunCommand>;

/** The rule's fields; ZStunRule adds the checks across fields. */
export const ZStunRuleFields = z.object({
  name: z.string().trim().min(1, { error: msgKey('cannotBeEmpty') }).max(64),
  enable: z.boolean().default(true),
  protocol: ZStunProtocol.default('udp'),
  /** IPv4 address the local port is opened on; empty = every IPv4 address. */
  listenHost: z.string().trim().refine((s) => s === '' || isIPv4(s), { error: msgKey('invalidIpv4') }).default(''),
  /** 0 = the system chooses once, and the same port is asked for again at every start. */
  localPort: z.number().int().min(0).max(65535).default(0),
  /** forward: relay to the target; none: the mapping only (the router or a local service takes the traffic). */
  mode: z.enum(['forward', 'none']).default('forward'),
  targetHost: z.string().trim().max(253).default(''),
  targetPort: z.number().int().min(0).max(65535).default(0),
  limits: ZPortforwardLimits.default({ tcpMaxConnections: null, udpMaxSessions: null, udpSessionTimeout: null, udpPacketSize: null, tcpIdleTimeout: null }),
  filter: ZIpFilter.default({ mode: 'off', list: [] }),
  /** Tried in order; empty = the module's default list. */
  stunServers: ZStunServers.default([]),
  /** Seconds between checks of the public address (and keepalive packets); null = the module's default. */
  keepaliveInterval: z.number().int().min(5).max(3600).nullable().default(null),
  /** TCP only: an http:// URL the keepalive connection requests; empty = the module's default. */
  keepaliveUrl: z.string().trim().max(1024).default(''),
  upnp: ZStunUpnp.default({ enable: false, gatewayUrl: '', lease: 3600 }),
  natpmp: ZStunNatpmp.default({ enable: false, gateway: '', lifetime: 3600 }),
  /** Called when the public address changes: #{ip} #{port} #{addr} #{ruleName} #{localPort} #{protocol}. */
  webhook: ZWebhook.default({
    enable: false,
    preset: 'custom',
    url: '',
    method: 'POST',
    headers: [],
    body: '',
    successCheck: { enable: false, text: '' },
    proxy: { type: 'none', address: '', user: '', password: '' },
  }),
  command: ZStunCommand.default({ enable: false, line: '', timeout: 30 }),
  /** DDNS tasks that publish the public address (A record) when it changes. */
  ddnsTasks: z.array(ZRuleKey).max(16).default([]),
  note: z.string().max(512).default(''),
});

export const ZStunRule = ZStunRuleFields.superRefine((r, ctx) => {
  if (r.mode === 'forward') {
    if (r.targetHost === '') ctx.addIssue({ code: 'custom', path: ['targetHost'], message: msgKey('cannotBeEmpty') });
    else if (!isHostName(r.targetHost)) ctx.addIssue({ code: 'custom', path: ['targetHost'], message: msgKey('pfInvalidHost') });
    if (r.targetPort < 1) ctx.addIssue({ code: 'custom', path: ['targetPort'], message: msgKey('invalidPort') });
  }
  if (r.keepaliveUrl !== '' && !/^http:\/\/[^\s/]+(\/\S*)?$/i.test(r.keepaliveUrl)) {
    ctx.addIssue({ code: 'custom', path: ['keepaliveUrl'], message: msgKey('stunInvalidKeepaliveUrl') });
  }
  if (r.upnp.enable && r.upnp.gatewayUrl !== '' && !/^http:\/\/\S+$/i.test(r.upnp.gatewayUrl)) {
    ctx.addIssue({ code: 'custom', path: ['upnp', 'gatewayUrl'], message: msgKey('invalidUrl') });
  }
  if (r.natpmp.enable && r.natpmp.gateway !== '' && !isIPv4(r.natpmp.gateway)) {
    ctx.addIssue({ code: 'custom', path: ['natpmp', 'gateway'], message: msgKey('invalidIpv4') });
  }
  if (r.command.enable && r.command.line.trim() === '') ctx.addIssue({ code: 'custom', path: ['command', 'line'], message: msgKey('cannotBeEmpty') });
  if (r.mode === 'forward' && r.filter.mode === 'whitelist' && r.filter.list.length === 0) ctx.addIssue({ code: 'custom', path: ['filter', 'list'], message: msgKey('cannotBeEmpty') });
  checkWebhook(r.webhook, ['webhook'], ctx);
});
export type StunRule = z.infer<typeof ZStunRule>;
export type StunRuleInput = z.input<typeof ZStunRule>;

export const STUN_MAPPING_KINDS = ['upnp', 'natpmp'] as const;
/** A mapping asked of the router. */
export const ZStunMapping = z.object({
  kind: z.enum(STUN_MAPPING_KINDS),
  state: z.enum(['pending', 'ok', 'failed']),
  /** The router (device URL or address) that answered. */
  gateway: z.string(),
  externalPort: z.number().nullable(),
  /** Unix ms when the router's lease ends; null for a permanent one. */
  expires: z.number().nullable(),
  /** Why it failed, in the reader's language; '' when it did not. */
  reason: z.string(),
});
export type StunMapping = z.infer<typeof ZStunMapping>;

/** Live figures of one rule, since it last started. */
export const ZStunFigures = z.object({
  /** The public address:port, or null before the first answer. */
  publicAddr: z.string().nullable(),
  /** The local port in use (the one the system chose when the rule asks for 0). */
  localPort: z.number().nullable(),
  /** The STUN server that answered last. */
  server: z.string().nullable(),
  /** Unix ms of the last change of the public address, and of the last check. */
  lastChange: z.number().nullable(),
  lastCheck: z.number().nullable(),
  /** Changes noticed since the rule started (the first address counts). */
  changes: z.number(),
  mappings: z.array(ZStunMapping),
  connections: z.number(),
  sessions: z.number(),
  totalConnections: z.number(),
  bytesIn: z.number(),
  bytesOut: z.number(),
  refusedByFilter: z.number(),
  refusedByLimit: z.number(),
});
export type StunFigures = z.infer<typeof ZStunFigures>;

export const ZStunRuleView = ruleView(ZStunRuleFields, { stun: ZStunFigures });
export type StunRuleView = z.infer<typeof ZStunRuleView>;

export const ZStunConfigure = z.object({
  stunServers: ZStunServers.min(1, { error: msgKey('cannotBeEmpty') }).default(STUN_DEFAULT_SERVERS),
  /** Seconds, for rules that leave theirs at null. */
  keepaliveInterval: z.number().int().min(5).max(3600).default(30),
  keepaliveUrl: z
    .string()
    .trim()
    .max(1024)
    .refine((u) => /^http:\/\/[^\s/]+(\/\S*)?$/i.test(u), { error: msgKey('stunInvalidKeepaliveUrl') })
    .default(STUN_DEFAULT_KEEPALIVE_URL),
  /** Latest log lines shown per rule (spec section 9). */
  logLines: z.number().int().min(1).max(64).default(32),
});
export type StunConfigure = z.infer<typeof ZStunConfigure>;

export const NAT_BEHAVIOURS = ['endpointIndependent', 'addressDependent', 'addressAndPortDependent', 'unknown'] as const;
export const ZNatBehaviour = z.enum(NAT_BEHAVIOURS);
export type NatBehaviour = z.infer<typeof ZNatBehaviour>;

export const ZStunNatTestRequest = z.object({
  /** The server to test with; it must offer OTHER-ADDRESS (RFC 5780) for the full answer. Empty = the first default. */
  server: z.union([z.literal(''), ZStunServer]).default(''),
  /** Local IPv4 address to test from; empty = the system's choice. */
  localHost: z.string().trim().refine((s) => s === '' || isIPv4(s), { error: msgKey('invalidIpv4') }).default(''),
});

export const ZStunNatTestResult = z.object({
  server: z.string(),
  publicAddr: z.string().nullable(),
  /** RFC 5780 mapping and filtering behaviour. */
  mapping: ZNatBehaviour,
  filtering: ZNatBehaviour,
  /** "full cone: traversal works"… in the reader's language. */
  verdict: z.string(),
  /** The steps as they went, in the reader's language. */
  steps: z.array(z.string()),
});
export type StunNatTestResult = z.infer<typeof ZStunNatTestResult>;

export const ZStunWebhookTestRequest = z.object({
  webhook: ZWebhook.superRefine((w, ctx) => checkWebhook(w, [], ctx)),
});

export const stunContract = moduleContract('stun', { input: ZStunRule, view: ZStunRuleView, configure: ZStunConfigure }, {
  natTest: route({
    method: 'POST',
    path: '/api/stun/nattest',
    summary: 'NAT behaviour test (RFC 5780): mapping and filtering, with a plain-language verdict',
    module: 'stun',
    body: ZStunNatTestRequest,
    response: ok({ result: ZStunNatTestResult }),
  }),
  recheck: route({
    method: 'POST',
    path: '/api/stun/rules/:key/recheck',
    summary: 'Ask the STUN servers for the public address of a running rule now',
    module: 'stun',
    params: ZRuleParams,
    response: ok({ msg: z.string(), stun: ZStunFigures }),
  }),
  webhookTest: route({
    method: 'POST',
    path: '/api/stun/webhooktest',
    summary: 'Call a webhook with sample values',
    module: 'stun',
    body: ZStunWebhookTestRequest,
    response: ok({ success: z.boolean(), status: z.number(), body: z.string(), msg: z.string() }),
  }),
  choices: route({
    method: 'GET',
    path: '/api/stun/choices',
    summary: 'What a rule can refer to: DDNS tasks to publish through, webhook presets',
    module: 'stun',
    response: ok({
      ddnsTasks: z.array(z.object({ key: ZRuleKey, name: z.string(), enable: z.boolean(), provider: z.string(), domains: z.array(z.string()) })),
      webhookPresets: z.record(z.string(), ZWebhook.partial()),
    }),
  }),
});
export const stunRoutes = stunContract.routes;
