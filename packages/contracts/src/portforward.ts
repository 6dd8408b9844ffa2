/**
 * Port forwarding: TCP and UDP listeners that relay to one or more targets (round robin with
 * failover), with port lists and ranges, limits, an IP filter, TLS on either side and PROXY protocol.
 */
import { z } from 'zod';
import { msgKey } from './i18n.js';
import { isIP, isIPv4, isIPv6, ZCidr, ZListenHost, ZNonEmpty } from './net.js';
import { ACME_NAME_RE } from './acme.js';
import { moduleContract, ruleView } from './rules.js';
import { secret, SECRET_MASK } from './secrets.js';

/** The most ports one rule may listen on (each one is a socket per type). */
export const PORT_LIST_MAX = 4096;

export const FORWARD_TYPES = ['tcp', 'tcp4', 'tcp6', 'udp', 'udp4', 'udp6'] as const;
export const ZForwardType = z.enum(FORWARD_TYPES);
export type ForwardType = z.infer<typeof ZForwardType>;

export type PortListResult = { ok: true; ports: number[] } | { ok: false; error: PortListError };
export type PortListError = 'empty' | 'syntax' | 'range' | 'reversed' | 'duplicate' | 'tooMany';

/**
 * `80,443,1000-1010` → [80, 443, 1000, ..., 1010], in the written order. Spaces are allowed
 * around items; ports are 1-65535; a range must not run backwards; no port twice.
 */
export function parsePortList(text: string): PortListResult {
  const items = text.split(/[,，]/).map((s) => s.trim());
  if (items.length === 1 && items[0] === '') return { ok: false, error: 'empty' };
  const ports: number[] = [];
  const seen = new Set<number>();
  for (const item of items) {
    const m = /^(\d{1,5})(?:\s*-\s*(\d{1,5}))?$/.exec(item);
    if (!m) return { ok: false, error: 'syntax' };
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (from < 1 || from > 65535 || to < 1 || to > 65535) return { ok: false, error: 'range' };
    if (to < from) return { ok: false, error: 'reversed' };
    if (ports.length + (to - from + 1) > PORT_LIST_MAX) return { ok: false, error: 'tooMany' };
    for (let p = from; p <= to; p++) {
      if (seen.has(p)) return { ok: false, error: 'duplicate' };
      seen.add(p);
      ports.push(p);
    }
  }
  return { ok: true, ports };
}

/** What each problem of a port list says (the console's own check says the same). */
export const PORT_LIST_MESSAGES = {
  empty: 'cannotBeEmpty',
  syntax: 'pfPortListSyntax',
  range: 'invalidPort',
  reversed: 'pfPortRangeReversed',
  duplicate: 'pfPortListDuplicate',
  tooMany: 'pfPortListTooLong',
} as const;

/** A port list as text, checked by parsePortList. */
export const ZPortList = z.string().superRefine((text, ctx) => {
  const r = parsePortList(text);
  if (!r.ok) ctx.addIssue({ code: 'custom', message: msgKey(PORT_LIST_MESSAGES[r.error]) });
});

/** A host name (RFC 1123 labels) or an IP address. */
export function isHostName(s: string): boolean {
  if (isIP(s)) return true;
  if (s.length > 253) return false;
  return s
    .replace(/\.$/, '')
    .split('.')
    .every((l) => /^[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/.test(l));
}
export const ZHost = z.string().trim().refine(isHostName, { error: msgKey('pfInvalidHost') });

/** Per-rule limits: `null` follows the module setting of the same name. */
export const ZPortforwardLimits = z.object({
  /** Concurrent TCP connections of this rule; 0 = no limit of its own. */
  tcpMaxConnections: z.number().int().min(0).max(1_000_000).nullable().default(null),
  /** Concurrent UDP sessions (client address:port) of this rule; 0 = no limit of its own. */
  udpMaxSessions: z.number().int().min(0).max(1_000_000).nullable().default(null),
  /** Seconds without a packet after which a UDP session ends. */
  udpSessionTimeout: z.number().int().min(1).max(86_400).nullable().default(null),
  /** Largest UDP datagram relayed, bytes; bigger ones are dropped. */
  udpPacketSize: z.number().int().min(64).max(65_507).nullable().default(null),
  /** Seconds without traffic in either direction after which a TCP connection is closed; 0 = never. */
  tcpIdleTimeout: z.number().int().min(0).max(604_800).nullable().default(null),
});
export type PortforwardLimits = z.infer<typeof ZPortforwardLimits>;

export const ZIpFilter = z.object({
  mode: z.enum(['off', 'blacklist', 'whitelist']).default('off'),
  /** Addresses or CIDR ranges (IPv4 and IPv6). */
  list: z.array(ZCidr).max(4096).default([]),
});
export type IpFilter = z.infer<typeof ZIpFilter>;

const PEM_CERT = /-----BEGIN CERTIFICATE-----/;
const PEM_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;

export const ZPortforwardTls = z.object({
  /** Terminate TLS on the listener (TCP types), forward plain. */
  listen: z.boolean().default(false),
  /**
   * `pem`: the `cert`/`key` fields; `store`: certificates of the Certificates module by name, the one
   * for the name a client asks for (SNI, wildcards too) or the first, swapped in when renewed.
   */
  certSource: z.enum(['pem', 'store']).default('pem'),
  certNames: z.array(z.string().trim().regex(ACME_NAME_RE, { error: msgKey('certBadName') })).max(16).default([]),
  /** PEM certificate chain. */
  cert: z.string().max(65_536).default(''),
  /** PEM private key; masked in answers, kept when the mask comes back. */
  key: secret(z.string().max(65_536)).default(''),
  /** Connect to the target over TLS. */
  target: z.boolean().default(false),
  /** SNI and name checked on the target's certificate; empty = the target address. */
  targetServerName: z.string().trim().max(253).default(''),
  /** Accept any certificate from the target (self-signed devices). */
  targetInsecure: z.boolean().default(false),
});
export type PortforwardTls = z.infer<typeof ZPortforwardTls>;

/** The rule's fields; ZPortforwardRule adds the checks across fields. */
export const ZPortforwardRuleFields = z.object({
  name: ZNonEmpty.max(64),
  enable: z.boolean().default(true),
  /** tcp/udp listen on every family the address allows; tcp4/tcp6/udp4/udp6 on one. */
  types: z
    .array(ZForwardType)
    .min(1, { error: msgKey('pfForwardTypeRequired') })
    .max(FORWARD_TYPES.length)
    .refine((t) => new Set(t).size === t.length, { error: msgKey('pfForwardTypeRequired') }),
  /** Empty = all addresses. */
  listenHost: ZListenHost.default(''),
  listenPorts: ZPortList,
  /** IP addresses or domain names; several = round robin, skipping ones that fail. */
  targets: z.array(ZHost).min(1, { error: msgKey('cannotBeEmpty') }).max(64),
  /** The same count as listenPorts (port i → target port i), or a single port for all. */
  targetPorts: ZPortList,
  limits: ZPortforwardLimits.default({
    tcpMaxConnections: null,
    udpMaxSessions: null,
    udpSessionTimeout: null,
    udpPacketSize: null,
    tcpIdleTimeout: null,
  }),
  filter: ZIpFilter.default({ mode: 'off', list: [] }),
  tls: ZPortforwardTls.default({
    listen: false,
    certSource: 'pem',
    certNames: [],
    cert: '',
    key: '',
    target: false,
    targetServerName: '',
    targetInsecure: false,
  }),
  /** A PROXY protocol header sent to the target first, carrying the client's address. */
  proxyProtocol: z.enum(['off', 'v1', 'v2']).default('off'),
  note: z.string().max(512).default(''),
});

export const ZPortforwardRule = ZPortforwardRuleFields.superRefine((r, ctx) => {
  const listen = parsePortList(r.listenPorts);
  const target = parsePortList(r.targetPorts);
  if (listen.ok && target.ok && target.ports.length !== 1 && target.ports.length !== listen.ports.length) {
    ctx.addIssue({ code: 'custom', path: ['targetPorts'], message: msgKey('pfPortCountMismatch') });
  }
  if (r.listenHost !== '') {
    const v4 = isIPv4(r.listenHost);
    const v6 = isIPv6(r.listenHost);
    const wrong = r.types.some((t) => (t.endsWith('4') && !v4) || (t.endsWith('6') && !v6));
    if (wrong) ctx.addIssue({ code: 'custom', path: ['listenHost'], message: msgKey('pfListenFamilyMismatch') });
  }
  if (r.tls.listen) {
    if (!r.types.some((t) => t.startsWith('tcp')))
      ctx.addIssue({ code: 'custom', path: ['tls', 'listen'], message: msgKey('pfTlsNeedsTcp') });
    if (r.tls.certSource === 'store') {
      if (r.tls.certNames.length === 0) ctx.addIssue({ code: 'custom', path: ['tls', 'certNames'], message: msgKey('pfCertNamesNeeded') });
    } else {
      if (!PEM_CERT.test(r.tls.cert)) ctx.addIssue({ code: 'custom', path: ['tls', 'cert'], message: msgKey('pfInvalidPemCert') });
      // The mask is a kept key: the daemon puts the stored one back before it validates (a mask with
      // nothing stored behind it arrives here as ''), and a form showing a stored rule passes its own check.
      if (r.tls.key !== SECRET_MASK && !PEM_KEY.test(r.tls.key)) ctx.addIssue({ code: 'custom', path: ['tls', 'key'], message: msgKey('pfInvalidPemKey') });
    }
  }
  if (r.filter.mode === 'whitelist' && r.filter.list.length === 0)
    ctx.addIssue({ code: 'custom', path: ['filter', 'list'], message: msgKey('cannotBeEmpty') });
});
export type PortforwardRule = z.infer<typeof ZPortforwardRule>;
export type PortforwardRuleInput = z.input<typeof ZPortforwardRule>;

/** Live figures of one rule, since it last started. */
export const ZPortforwardStats = z.object({
  tcpConnections: z.number(),
  udpSessions: z.number(),
  /** Bytes from clients to targets. */
  bytesIn: z.number(),
  /** Bytes from targets to clients. */
  bytesOut: z.number(),
  totalConnections: z.number(),
  refusedByLimit: z.number(),
  refusedByFilter: z.number(),
  /** Listening sockets running / wanted. */
  listeners: z.number(),
  listenersWanted: z.number(),
});
export type PortforwardStats = z.infer<typeof ZPortforwardStats>;

export const ZPortforwardRuleView = ruleView(ZPortforwardRuleFields, { stats: ZPortforwardStats });
export type PortforwardRuleView = z.infer<typeof ZPortforwardRuleView>;

export const ZPortforwardConfigure = z.object({
  /** All rules together; 0 = no limit. */
  tcpMaxConnections: z.number().int().min(0).max(1_000_000).default(0),
  udpMaxSessions: z.number().int().min(0).max(1_000_000).default(0),
  /** Defaults for rules that leave a limit at null. */
  ruleTcpMaxConnections: z.number().int().min(0).max(1_000_000).default(0),
  ruleUdpMaxSessions: z.number().int().min(0).max(1_000_000).default(0),
  udpSessionTimeout: z.number().int().min(1).max(86_400).default(60),
  udpPacketSize: z.number().int().min(64).max(65_507).default(65_507),
  tcpIdleTimeout: z.number().int().min(0).max(604_800).default(0),
  /** Seconds to wait for a target to accept before trying the next one. */
  connectTimeout: z.number().int().min(1).max(120).default(5),
  /** Write a rule log line for every connection opened and closed (refusals are always logged). */
  logConnections: z.boolean().default(true),
});
export type PortforwardConfigure = z.infer<typeof ZPortforwardConfigure>;

export const portforwardContract = moduleContract('portforward', { input: ZPortforwardRule, view: ZPortforwardRuleView, configure: ZPortforwardConfigure });
export const portforwardRoutes = portforwardContract.routes;
