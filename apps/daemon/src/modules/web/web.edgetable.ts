/**
 * A web rule as the native data plane serves it (native/edge/table.c reads this object): its sites in
 * the order compile() makes them (the default service, then each enabled sub rule), which of them
 * the edge serves itself and which go whole to the rule's Node server, host names to sites, filters,
 * and each proxy's backends by address. What the edge cannot do for a site, it sends to Node: files,
 * a response cache, HTTPS backends, backends whose names do not resolve.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { WebRule, WebService, WebSubRule } from '@lucky/contracts';
import { parseCidr, type Cidr } from '../../core/cidr.js';
import { merge, type Access, type WebPlan } from './web.compile.js';

/** Service kinds, as native/edge/edge.h numbers them. */
export const SVC = { proxy: 1, text: 2, redirect: 3, jump: 4, close: 5, fallback: 6 } as const;
const BALANCE = { roundrobin: 0, leastconn: 1, iphash: 2 } as const;
/** Template variables, in native/edge/edge.h's order. */
const VARS = ['host', 'port', 'hostAndPort', 'path', 'scheme', 'clientIP', 'remoteAddr', 'method', 'userAgent', 'time'];

export interface EdgeBackend {
  family: 4 | 6;
  address: string;
  port: number;
  /** The Host a backend gets when the request's is not kept. */
  host: string;
  base: string;
  url: string;
  healthy: boolean;
}

export interface EdgeSite {
  name: string;
  type: number;
  auth: boolean;
  /** Lucky login: sessions Node verified are served here; the portal's pages go to Node. */
  portal: boolean;
  userHeader: string;
  cors: boolean;
  ip: Array<{ whitelist: boolean; cidrs: Buffer }>;
  ua: Array<{ whitelist: boolean; list: string[] }>;
  robots: string | null;
  backends?: EdgeBackend[];
  balance?: number;
  maxFails?: number;
  failTimeoutMs?: number;
  timeoutMs?: number;
  useRequestHost?: boolean;
  forwarded?: boolean;
  websocket?: boolean;
  wsIdleMs?: number;
  reqHeaders?: string[];
  resHeaders?: string[];
  status?: number;
  contentType?: string;
  code?: number;
  /** A template: literal strings and variable numbers. */
  body?: Array<string | number>;
}

/** TLS of an HTTPS rule: the lowest version (0x0303 = 1.2), HTTP/2 offered by ALPN, the certificates (the first for unknown names). */
export interface EdgeTls {
  minVersion: number;
  h2: boolean;
  certs: Array<{ cert: string; key: string; names: string[] }>;
}

const TLS_VERSION = { '1.0': 0x0301, '1.1': 0x0302, '1.2': 0x0303, '1.3': 0x0304 } as const;

export interface EdgeTable {
  tls: boolean;
  /** HTTPS: the edge holds the TLS. */
  tlsConf?: EdgeTls;
  port: number;
  challenges: boolean;
  logCapacity: number;
  /** Limits per client address (native/edge/limit.c): tokens in millionths a ms and the bucket's depth; 0 = none. */
  limitPerMs: number;
  limitCap: number;
  limitConnections: number;
  maxBody: number;
  trusted: Buffer;
  /** Flat [name, site, ...]. */
  exact: Array<string | number>;
  /** Flat [".suffix", site, ...]. */
  wild: Array<string | number>;
  sites: EdgeSite[];
}

/** What the edge needs to tell about a site in words (the rule's log lines). */
export interface EdgeSiteInfo {
  /** The sub rule's name (or `#n`), '' for the default service. */
  name: string;
  urls: string[];
  failTimeoutSeconds: number;
}

/** CIDRs as 18 bytes each: family, prefix length, 16 address bytes. */
function packCidrs(list: readonly string[]): Buffer {
  const cidrs = list.map((s) => parseCidr(s)).filter((c): c is Cidr => c !== null);
  const out = Buffer.alloc(cidrs.length * 18);
  cidrs.forEach((c, i) => {
    out[i * 18] = c.bytes.length === 4 ? 4 : 6;
    out[i * 18 + 1] = c.bits;
    out.set(c.bytes, i * 18 + 2);
  });
  return out;
}

/** `{name}` as the Node path fills it (web.handler.ts fill): known names become variables, others stay text. */
export function templateOf(text: string): Array<string | number> {
  const out: Array<string | number> = [];
  let last = 0;
  for (const m of text.matchAll(/\{(\w+)\}/g)) {
    const v = VARS.indexOf(m[1]!);
    if (v < 0) continue;
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(v);
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** A backend's name to an address: the first IPv4 one, else the first (a LAN service listens on IPv4 most often). */
export async function resolveName(name: string): Promise<{ family: 4 | 6; address: string } | null> {
  const family = isIP(name);
  if (family) return { family: family as 4 | 6, address: name };
  try {
    const all = await Promise.race([
      lookup(name, { all: true }),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), 3000).unref()),
    ]);
    const pick = all.find((a) => a.family === 4) ?? all[0];
    return pick ? { family: pick.family as 4 | 6, address: pick.address } : null;
  } catch {
    return null;
  }
}

async function serviceOf(service: WebService, access: Access, resolve: typeof resolveName): Promise<Partial<EdgeSite> & { type: number }> {
  switch (service.type) {
    case 'proxy': {
      // A cache, or a backend over TLS, is the Node path's.
      if (access.cache.enable) return { type: SVC.fallback };
      const backends: EdgeBackend[] = [];
      for (const target of service.targets) {
        const u = new URL(target);
        if (u.protocol !== 'http:') return { type: SVC.fallback };
        const name = u.hostname.replace(/^\[|\]$/g, '');
        const addr = await resolve(name);
        if (!addr) return { type: SVC.fallback };
        backends.push({
          ...addr,
          port: Number(u.port) || 80,
          host: u.host,
          base: u.pathname === '/' ? '' : u.pathname.replace(/\/$/, ''),
          url: target,
          healthy: true,
        });
      }
      return {
        type: SVC.proxy,
        backends,
        balance: BALANCE[service.balance],
        maxFails: service.maxFails,
        failTimeoutMs: service.failTimeoutSeconds * 1000,
        timeoutMs: service.timeoutSeconds * 1000,
        useRequestHost: service.useRequestHost,
        forwarded: service.forwardedHeaders,
        websocket: service.websocket,
        wsIdleMs: service.websocketIdleSeconds * 1000,
        reqHeaders: service.requestHeaders.flatMap((h) => [h.name.toLowerCase(), h.value]),
        resHeaders: service.responseHeaders.flatMap((h) => [h.name.toLowerCase(), h.value]),
      };
    }
    case 'text':
      return { type: SVC.text, status: service.status, contentType: service.contentType, body: service.body.includes('{') ? templateOf(service.body) : [service.body] };
    case 'redirect':
      return { type: SVC.redirect, code: service.code, body: templateOf(service.target) };
    case 'jump':
      return { type: SVC.jump, body: templateOf(service.target) };
    case 'close':
      return { type: SVC.close };
    case 'file':
      return { type: SVC.fallback };
  }
}

async function siteOf(name: string, service: WebService, rule: WebRule, sub: WebSubRule | null, resolve: typeof resolveName): Promise<EdgeSite> {
  const access = merge(rule, sub);
  const filters = sub ? [rule, sub] : [rule];
  return {
    name,
    auth: access.basicAuth.enable,
    portal: access.portal.enable,
    userHeader: access.portal.userHeader,
    cors: access.cors.enable,
    ip: filters.filter((f) => f.ipFilter.mode !== 'off').map((f) => ({ whitelist: f.ipFilter.mode === 'whitelist', cidrs: packCidrs(f.ipFilter.list) })),
    ua: filters.filter((f) => f.uaFilter.mode !== 'off').map((f) => ({ whitelist: f.uaFilter.mode === 'whitelist', list: f.uaFilter.list.map((s) => s.toLowerCase()) })),
    robots: access.robots.enable ? access.robots.text : null,
    // Forward auth is Node's, request by request.
    ...(access.forwardAuth.enable ? { type: SVC.fallback } : await serviceOf(service, access, resolve)),
  };
}

/** The rule's table, and what its log lines need to name sites and backends. */
export async function edgeTable(plan: WebPlan, o: { h2: boolean; resolve?: typeof resolveName }): Promise<{ table: EdgeTable; sites: EdgeSiteInfo[] }> {
  const resolve = o.resolve ?? resolveName;
  const { rule } = plan;
  const sites: EdgeSite[] = [await siteOf('', rule.defaultService, rule, null, resolve)];
  const info: EdgeSiteInfo[] = [infoOf('', rule.defaultService)];
  const exact = new Map<string, number>();
  const wild = new Map<string, number>();
  for (const [i, sub] of rule.subRules.entries()) {
    if (!sub.enable) continue;
    const name = sub.name || `#${i + 1}`;
    const index = sites.length;
    sites.push(await siteOf(name, sub.service, rule, sub, resolve));
    info.push(infoOf(name, sub.service));
    // The first sub rule to name a host keeps it (lib/domainmatch.ts).
    for (const d of sub.domains) {
      if (d.startsWith('*.')) {
        if (!wild.has(d.slice(1))) wild.set(d.slice(1), index);
      } else if (!exact.has(d)) exact.set(d, index);
    }
  }
  return {
    table: {
      tls: rule.protocol === 'https',
      ...(rule.protocol === 'https'
        ? { tlsConf: { minVersion: TLS_VERSION[rule.minTls], h2: o.h2 && rule.http2, certs: plan.certs.map((c) => ({ cert: c.cert, key: c.key, names: c.names })) } }
        : {}),
      port: rule.port,
      challenges: Object.keys(plan.challenges ?? {}).length > 0,
      logCapacity: rule.accessLog.capacity,
      limitPerMs: rule.limits.rate > 0 ? Math.max(1, Math.round(rule.limits.rate * 1000)) : 0,
      limitCap: (rule.limits.burst + 1) * 1_000_000,
      limitConnections: rule.limits.connections,
      maxBody: rule.limits.maxBodyBytes,
      trusted: packCidrs(rule.trustedProxies),
      exact: [...exact].flat(),
      wild: [...wild].flat(),
      sites,
    },
    sites: info,
  };
}

function infoOf(name: string, service: WebService): EdgeSiteInfo {
  return service.type === 'proxy' ? { name, urls: service.targets, failTimeoutSeconds: service.failTimeoutSeconds } : { name, urls: [], failTimeoutSeconds: 0 };
}
