/**
 * A web rule made ready to serve: each site (the default service and every enabled sub rule) with
 * its filters, auth, CORS, robots.txt and service built once, the host matcher, the trusted proxies
 * and the TLS contexts. A saved rule is compiled anew and swapped in whole, so a request always sees
 * one version of the rule.
 */
import { statSync } from 'node:fs';
import type { z } from 'zod';
import type { Msg, MsgValue, WebRule, WebService, WebSubRule, ZWebBasicAuth } from '@lucky/contracts';
import { RuleProblem } from '../../core/engine.js';
import type { Cidr } from '../../core/cidr.js';
import { DomainMatcher } from '../../lib/domainmatch.js';
import { serverTls, type ServerTls } from '../../lib/tls/contexts.js';
import { TlsError, type TlsCert } from '../../lib/tls/pem.js';
import {
  BasicAuthGate,
  compileCidrs,
  compileCors,
  compileIpFilter,
  compileUaFilter,
  type CompiledCors,
  type CompiledIpFilter,
  type CompiledUaFilter,
} from './web.access.js';
import { ResponseCache } from './web.cache.js';
import type { PortalSite } from './web.portalgate.js';
import { ForwardAuth } from './web.forwardauth.js';
import { ClientLimits } from './web.limits.js';
import { FileServer } from './web.files.js';
import { ReverseProxy, type BackendEvent } from './web.proxy.js';

/**
 * A rule as the serving side gets it, the same on the main thread and in a serving thread: the rule,
 * and its certificates already read and checked by the certificates service.
 */
export interface WebPlan {
  rule: WebRule;
  certs: TlsCert[];
  /** ACME HTTP-01 answers (token → key authorization) this plain-HTTP rule gives while an order needs them. */
  challenges?: Record<string, string>;
}

export type Access = Pick<WebSubRule, 'basicAuth' | 'portal' | 'forwardAuth' | 'ipFilter' | 'uaFilter' | 'cache' | 'cors' | 'robots'>;

export interface Site {
  /** The sub rule's name (or `#n`), '' for the default service. */
  name: string;
  service: WebService;
  proxy: ReverseProxy | null;
  files: FileServer | null;
  ipFilters: CompiledIpFilter[];
  uaFilters: CompiledUaFilter[];
  auth: BasicAuthGate | null;
  /** Lucky login (web.portalgate.ts); null when off. */
  portal: PortalSite | null;
  /** The external authorizer asked before serving (web.forwardauth.ts); null when off. */
  forwardAuth: ForwardAuth | null;
  cors: CompiledCors | null;
  robots: string | null;
}

export interface Compiled {
  rule: WebRule;
  sites: DomainMatcher<Site>;
  fallback: Site;
  all: Site[];
  trusted: Cidr[];
  ipHeaders: string[];
  /** Null for plain HTTP. */
  tls: ServerTls | null;
  /** ACME HTTP-01 answers by token (usually empty). */
  challenges: Map<string, string>;
  /** What the rule runs with but should not (a file root that is missing...). */
  warnings: Msg[];
  /** Its limits per client address on the Node path (kept across saves that leave them as they were). */
  limits: ClientLimits | null;
}

export interface CompileOptions {
  /** The part of each response cache's byte bound this thread may fill (1 / serving threads). */
  cacheShare: number;
  /** File servers send large bodies by sendfile (env.nativeRelay, on the main thread). */
  nativeFiles?: boolean;
  /** A line for the rule's log (a backend marked down...). */
  note(line: Msg): void;
  /** An active health check's new verdict on a site's backend, by index (the native data plane follows it). */
  health?(site: number, backend: number, up: boolean): void;
  /** A site's basic auth verified this Authorization header, good for `ms` (the native data plane accepts it then). */
  authorized?(site: number, header: string, ms: number): void;
  /** A site's portal session was checked and allowed, good for `ms` (the native data plane serves its token then). */
  session?(site: number, token: string, ms: number, user: string): void;
}

/** A sub rule's access settings where it enables them, else the rule's (the native data plane's tables merge the same way). */
export function merge(rule: Access, sub: Access | null): Access {
  if (!sub) return rule;
  return {
    basicAuth: sub.basicAuth.enable ? sub.basicAuth : rule.basicAuth,
    portal: sub.portal.enable ? sub.portal : rule.portal,
    forwardAuth: sub.forwardAuth.enable ? sub.forwardAuth : rule.forwardAuth,
    ipFilter: sub.ipFilter,
    uaFilter: sub.uaFilter,
    cache: sub.cache.enable ? sub.cache : rule.cache,
    cors: sub.cors.enable ? sub.cors : rule.cors,
    robots: sub.robots.enable ? sub.robots : rule.robots,
  };
}

/** A site as messages name it: the sub rule's name, or "default" in the reader's language. */
function siteName(name: string): MsgValue {
  return name || { key: 'webSiteDefault' };
}

function backendLine(site: MsgValue, e: BackendEvent): Msg {
  if (e.kind === 'down') return { key: 'webBackendDown', vars: { site, url: e.url, seconds: e.seconds, detail: e.detail } };
  return { key: e.up ? 'webBackendCheckUp' : 'webBackendCheckDown', vars: { site, url: e.url } };
}

function compileSite(index: number, name: string, service: WebService, rule: WebRule, sub: WebSubRule | null, warnings: Msg[], o: CompileOptions): Site {
  const access = merge(rule, sub);
  const ipFilters: CompiledIpFilter[] = [];
  const uaFilters: CompiledUaFilter[] = [];
  for (const f of sub ? [rule.ipFilter, sub.ipFilter] : [rule.ipFilter]) {
    const c = compileIpFilter(f);
    if (c) ipFilters.push(c);
  }
  for (const f of sub ? [rule.uaFilter, sub.uaFilter] : [rule.uaFilter]) {
    const c = compileUaFilter(f);
    if (c) uaFilters.push(c);
  }
  let proxy: ReverseProxy | null = null;
  let files: FileServer | null = null;
  const site = siteName(name);
  if (service.type === 'proxy') {
    const cache = access.cache.enable ? new ResponseCache(Math.floor(access.cache.maxBytes * o.cacheShare), access.cache.maxEntryBytes, access.cache.ttlSeconds * 1000) : null;
    proxy = new ReverseProxy(service, cache, (e) => {
      if (e.kind === 'check') o.health?.(index, service.targets.indexOf(e.url), e.up);
      o.note(backendLine(site, e));
    });
  } else if (service.type === 'file') {
    try {
      if (!statSync(service.root).isDirectory()) warnings.push({ key: 'statusRootNotDir', vars: { site, path: service.root } });
    } catch {
      warnings.push({ key: 'statusRootMissing', vars: { site, path: service.root } });
    }
    files = new FileServer(service, { native: o.nativeFiles ?? false });
  }
  return {
    name,
    service,
    proxy,
    files,
    ipFilters,
    uaFilters,
    auth: access.basicAuth.enable
      ? new BasicAuthGate(access.basicAuth as z.output<typeof ZWebBasicAuth>, undefined, undefined, o.authorized ? (header, ms) => o.authorized!(index, header, ms) : null)
      : null,
    portal: access.portal.enable
      ? { userHeader: access.portal.userHeader, ...(o.session ? { verified: (token: string, ms: number, user: string) => o.session!(index, token, ms, user) } : {}) }
      : null,
    forwardAuth:
      access.forwardAuth.enable && access.forwardAuth.url
        ? new ForwardAuth(access.forwardAuth, (url, detail) => o.note({ key: 'webForwardAuthDown', vars: { site, url, detail } }))
        : null,
    cors: compileCors(access.cors),
    robots: access.robots.enable ? access.robots.text : null,
  };
}

/** Throws a RuleProblem for what keeps the rule from running (its certificates cannot be used). */
export function compile(plan: WebPlan, o: CompileOptions): Compiled {
  const { rule } = plan;
  let tls: ServerTls | null = null;
  if (rule.protocol === 'https') {
    try {
      tls = serverTls(plan.certs, rule.minTls);
    } catch (err) {
      if (err instanceof TlsError) throw new RuleProblem(err.msg, err.retry);
      throw err;
    }
  }
  const warnings: Msg[] = [];
  const sites = new DomainMatcher<Site>();
  const fallback = compileSite(0, '', rule.defaultService, rule, null, warnings, o);
  const all: Site[] = [fallback];
  rule.subRules.forEach((sub, i) => {
    if (!sub.enable) return;
    const site = compileSite(all.length, sub.name || `#${i + 1}`, sub.service, rule, sub, warnings, o);
    all.push(site);
    for (const d of sub.domains) sites.add(d, site);
  });
  return {
    rule,
    sites,
    fallback,
    all,
    trusted: compileCidrs(rule.trustedProxies),
    ipHeaders: rule.clientIpHeaders.map((h) => h.toLowerCase()),
    tls,
    challenges: new Map(Object.entries(plan.challenges ?? {})),
    warnings,
    limits: ClientLimits.of(rule.limits),
  };
}

/** Lets go of what a compiled rule holds open (backend pools, health checks). */
export function dispose(c: Compiled): void {
  for (const s of c.all) {
    s.proxy?.close();
    s.forwardAuth?.close();
  }
}
