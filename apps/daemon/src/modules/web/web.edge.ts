/**
 * Web rules served by the native data plane (native/edge, docs/WEB.md): the edge's threads own each
 * rule's listening socket and serve what its table says they can (proxies to backends by address,
 * text, redirects, URL jumps, close, filters, robots.txt, websockets); everything else (files, a
 * cache, a login, CORS, a trusted proxy's client address, ACME answers, HTTPS backends) goes, a
 * request at a time, to the rule's Node server on this thread, which listens nowhere: the edge hands
 * it one end of a socketpair per connection. Figures and the access log are the edge's (it sees every
 * answer, its own and Node's), with how many requests each side served.
 */
import { closeSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { constants } from 'node:os';
import { WEB_DURATION_BUCKETS } from '@lucky/contracts/runtime';
import type { Msg, WebFigures } from '@lucky/contracts';
import { addonPath } from '../../core/addons.js';
import { RuleProblem } from '../../core/engine.js';
import type { Say } from '../../core/logs.js';
import { listenReusePort } from '../../core/native.js';
import type { WebPlan } from './web.compile.js';
import { edgeTable, type EdgeSiteInfo } from './web.edgetable.js';
import type { EdgeTable } from './web.edgetable.js';
import { WebListeners } from './web.lifecycle.js';
import { listenHost } from './web.listen.js';
import { mainStapler, ocspStapling, type OcspAddon, type OcspWatch } from './web.ocsp.js';
import type { AccessLogPage, Serving, ServingEvents } from './web.serving.js';
import { listenFailure } from './web.threads.js';
import { onTicketRotation } from './web.tickets.js';
import { webPortal } from './web.portal.js';

/** native/edge/napi.c */
export interface EdgeAddon extends OcspAddon {
  /** Built with HTTP/2 (nghttp2's declarations were there at build time). */
  readonly edgeH2: boolean;
  edgeStart(threads: number, onEvent: (kind: number, rule: number, a: number, b: number, c: number) => void): number;
  edgeStop(): void;
  edgeAdd(fd: number, table: EdgeTable): number;
  edgeApply(rule: number, table: EdgeTable): void;
  edgeRemove(rule: number, graceMs: number): void;
  edgeFree(rule: number): void;
  edgeFigures(rule: number): [number, number, number, number, number, number, number[], number[]];
  edgeLog(rule: number, limit: number): [Array<[number, string, string, string, string, number, number, number, string, string]>, number];
  edgeHealth(rule: number, site: number, backend: number, healthy: boolean): void;
  /** Node verified this Authorization header for the site (scrypt): the edge accepts it itself for `ms`. */
  edgeAuthorized(rule: number, site: number, header: string, ms: number): void;
  /** Node checked and allowed this portal session for the site: the edge serves its token itself for `ms`, as `user`. */
  edgeSession(rule: number, site: number, token: string, ms: number, user: string): void;
  /** Sessions ended or users changed: every site of the rule asks Node again. */
  edgeForgetSessions(rule: number): void;
  edgeOcsp(rule: number, cert: number, der: Buffer | null): void;
  edgeTicketRotation(ms: number): void;
}

const EVENT_ADOPT = 1;
const EVENT_BACKEND_DOWN = 2;
const EVENT_REMOVED = 3;
/** How long requests under way may finish when a rule stops (as on the Node path). */
const STOP_GRACE_MS = 1000;
/** Backends named by host name are looked up again this often (a container that restarted has another address). */
const RESOLVE_EVERY_MS = 30_000;

const ERRNO_NAMES = new Map(Object.entries(constants.errno).map(([name, n]) => [n, name]));

const ADDON = addonPath('edge');
let loaded: EdgeAddon | null | undefined;

/** The edge, when this build has it (Linux, a C compiler and Node's headers at build time). */
export function edgeAddon(): EdgeAddon | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  if (process.platform === 'linux' && existsSync(ADDON)) {
    try {
      loaded = createRequire(import.meta.url)(ADDON) as EdgeAddon;
    } catch {
      loaded = null; // a build for another system
    }
  }
  return loaded;
}

interface EdgeRule {
  id: number;
  plan: WebPlan;
  events: ServingEvents;
  sites: EdgeSiteInfo[];
  /** The table's backends by address, to see when a name's address changed. */
  addresses: string;
  timer: NodeJS.Timeout | null;
  /** Serialises applies (a save, a new address) of this rule. */
  busy: Promise<unknown>;
  /** OCSP answers stapled to its certificates (HTTPS). */
  ocsp?: OcspWatch;
}

const siteName = (name: string) => name || { key: 'webSiteDefault' as const };

function addressesOf(table: EdgeTable): string {
  return table.sites.map((s) => (s.backends ?? []).map((b) => b.address).join(',')).join(';');
}

/** Users of the edge's threads in this process (a test may run two engines): the last one stops them. */
let users = 0;
/** The edge's ticket keys follow the period of web.tickets.ts (set once per process). */
let rotationFollowed = false;

export class EdgeServing implements Serving {
  readonly threads: number;
  readonly onMain = false;
  private node: WebListeners;
  /** Rules an edge built without HTTP/2 cannot take (HTTPS with HTTP/2): Node's servers listen for them, as LUCKY_WEB_ENGINE=node would. */
  private direct: WebListeners;
  private rules = new Map<string, EdgeRule>();
  private keys = new Map<number, string>();
  private removed = new Map<number, () => void>();

  constructor(
    private addon: EdgeAddon,
    o: { threads: number; say: Say; nativeFiles?: boolean },
  ) {
    // Files leave the rule's Node server by sendfile on the relay thread, into the edge's socketpair.
    this.node = new WebListeners({ say: o.say, nativeFiles: o.nativeFiles ?? false });
    this.direct = new WebListeners({ say: o.say, stapling: mainStapler, nativeFiles: o.nativeFiles ?? false });
    this.threads = addon.edgeStart(o.threads, (kind, id, a, b, c) => EdgeServing.dispatch(kind, id, a, b, c));
    // A revoked session (or a changed user) is refused by the edge at once, not when its token's time runs out.
    this.unfollowPortal = webPortal.subscribe(() => {
      for (const r of this.rules.values()) if (r.id) this.addon.edgeForgetSessions(r.id);
    });
    users++;
    if (!rotationFollowed) {
      rotationFollowed = true;
      onTicketRotation((ms) => addon.edgeTicketRotation(ms));
    }
  }

  /** Rule ids are the process's: events go to the engine that added the rule. */
  private static owners = new Map<number, EdgeServing>();

  private static dispatch(kind: number, id: number, a: number, b: number, c: number): void {
    const owner = EdgeServing.owners.get(id);
    if (owner) owner.onEvent(kind, id, a, b, c);
    else if (kind === EVENT_ADOPT) closeSync(a);
  }

  private onEvent(kind: number, id: number, a: number, b: number, c: number): void {
    if (kind === EVENT_ADOPT) {
      const key = this.keys.get(id);
      if (key === undefined) return closeSync(a);
      this.node.adopt(key, a);
    } else if (kind === EVENT_BACKEND_DOWN) {
      const r = this.rules.get(this.keys.get(id) ?? '');
      const site = r?.sites[a];
      const url = site?.urls[b];
      if (!r || !site || url === undefined) return;
      const detail = c ? (ERRNO_NAMES.get(c) ?? `errno ${c}`) : 'closed';
      r.events.note({ key: 'webBackendDown', vars: { site: siteName(site.name), url, seconds: site.failTimeoutSeconds, detail } });
    } else if (kind === EVENT_REMOVED) {
      this.removed.get(id)?.();
    }
  }

  /** The rule's Node server (checks its certificates: a bad one stops here), then its table and socket to the edge. */
  async open(key: string, plan: WebPlan, events: ServingEvents): Promise<Msg[]> {
    await this.stop(key);
    // An edge built without HTTP/2 leaves HTTP/2 rules to Node's servers.
    if (plan.rule.protocol === 'https' && plan.rule.http2 && !this.addon.edgeH2) return this.direct.open(key, plan, events);
    const rule: EdgeRule = { id: 0, plan, events, sites: [], addresses: '', timer: null, busy: Promise.resolve() };
    const warnings = await this.node.openBehindEdge(key, plan, {
      note: events.note,
      health: (site, backend, up) => this.health(rule, site, backend, up),
      authorized: (site, header, ms) => {
        if (rule.id) this.addon.edgeAuthorized(rule.id, site, header, ms);
      },
      session: (site, token, ms, user) => {
        if (rule.id && ms > 0) this.addon.edgeSession(rule.id, site, token, ms, user);
      },
    });
    let fd = -1;
    try {
      const { table, sites } = await edgeTable(plan, { h2: this.addon.edgeH2 });
      rule.sites = sites;
      rule.addresses = addressesOf(table);
      const r = plan.rule;
      try {
        fd = listenReusePort(listenHost(r), r.port, r.network === 'tcp6');
      } catch (err) {
        throw listenFailure(plan, err);
      }
      rule.id = this.addon.edgeAdd(fd, table);
    } catch (err) {
      if (fd >= 0) closeSync(fd);
      await this.node.stop(key);
      throw err instanceof RuleProblem ? err : new RuleProblem({ key: 'statusApplyFailed', vars: { detail: String((err as Error)?.message ?? err) } });
    }
    this.rules.set(key, rule);
    this.keys.set(rule.id, key);
    EdgeServing.owners.set(rule.id, this);
    this.watchOcsp(key, rule, plan, events);
    if (plan.rule.defaultService.type === 'proxy' || plan.rule.subRules.some((s) => s.service.type === 'proxy')) this.watchNames(key, rule);
    return warnings;
  }

  /** OCSP answers for the rule's certificates, stapled as they come (a new watch per version of the rule). */
  private watchOcsp(key: string, rule: EdgeRule, plan: WebPlan, events: ServingEvents): void {
    if (plan.rule.protocol !== 'https') return;
    const staple = (cert: number, der: Buffer | null) => {
      if (this.rules.get(key) !== rule) return;
      try {
        this.addon.edgeOcsp(rule.id, cert, der);
      } catch {
        /* the rule is going away */
      }
    };
    // The new watch first: a certificate both versions have keeps its answer and staples it at once.
    const before = rule.ocsp;
    rule.ocsp = ocspStapling().watch(plan.certs, { staple, note: events.note }, before);
    before?.close();
  }

  private health(rule: EdgeRule, site: number, backend: number, up: boolean): void {
    if (rule.id && backend >= 0) this.addon.edgeHealth(rule.id, site, backend, up);
  }

  /** Names of backends looked up again now and then; a new address is a new table. */
  private watchNames(key: string, rule: EdgeRule): void {
    rule.timer = setInterval(() => {
      rule.busy = rule.busy.then(async () => {
        if (this.rules.get(key) !== rule) return;
        const { table, sites } = await edgeTable(rule.plan, { h2: this.addon.edgeH2 });
        const addresses = addressesOf(table);
        if (addresses === rule.addresses || this.rules.get(key) !== rule) return;
        rule.addresses = addresses;
        rule.sites = sites;
        this.addon.edgeApply(rule.id, table);
        // A new table has new TLS contexts, with nothing stapled yet.
        rule.ocsp?.replay();
      }).catch(() => undefined);
    }, RESOLVE_EVERY_MS);
    rule.timer.unref();
  }

  async apply(key: string, plan: WebPlan): Promise<Msg[]> {
    if (this.direct.has(key)) return this.direct.apply(key, plan);
    const rule = this.rules.get(key);
    if (!rule) throw new Error(`web rule ${key} is not served`);
    const run = rule.busy.then(async () => {
      const warnings = await this.node.apply(key, plan);
      const { table, sites } = await edgeTable(plan, { h2: this.addon.edgeH2 });
      rule.plan = plan;
      rule.sites = sites;
      rule.addresses = addressesOf(table);
      this.addon.edgeApply(rule.id, table);
      this.watchOcsp(key, rule, plan, rule.events);
      return warnings;
    });
    rule.busy = run.catch(() => undefined);
    return run;
  }

  async stop(key: string): Promise<void> {
    if (this.direct.has(key)) return this.direct.stop(key);
    const rule = this.rules.get(key);
    if (!rule) return;
    this.rules.delete(key);
    if (rule.timer) clearInterval(rule.timer);
    rule.ocsp?.close();
    await rule.busy;
    const gone = new Promise<void>((resolve) => this.removed.set(rule.id, resolve));
    this.addon.edgeRemove(rule.id, STOP_GRACE_MS);
    // Requests the edge still passes to Node finish there meanwhile.
    await gone;
    this.removed.delete(rule.id);
    this.keys.delete(rule.id);
    EdgeServing.owners.delete(rule.id);
    this.addon.edgeFree(rule.id);
    await this.node.stop(key);
  }

  figures(key: string): WebFigures {
    if (this.direct.has(key)) return this.direct.figures(key);
    const rule = this.rules.get(key);
    if (!rule) return { requests: 0, bytesIn: 0, bytesOut: 0, connections: 0, codes: {} };
    const [requests, native, fallback, bytesIn, bytesOut, connections, flat, durations] = this.addon.edgeFigures(rule.id);
    const codes: Record<string, number> = {};
    for (let i = 0; i < flat.length; i += 2) codes[String(flat[i])] = flat[i + 1]!;
    const figures: WebFigures = { requests, bytesIn, bytesOut, connections, codes, engine: { native, node: fallback } };
    // Buckets, one past the last, then the sum; an addon of another build (other buckets) has none to give.
    if (durations?.length === WEB_DURATION_BUCKETS.length + 2) figures.duration = { counts: durations.slice(0, -1), seconds: durations.at(-1)! };
    return figures;
  }

  accessLog(key: string, limit: number): AccessLogPage {
    if (this.direct.has(key)) return this.direct.accessLog(key, limit);
    const rule = this.rules.get(key);
    if (!rule) return { list: [], total: 0 };
    const [rows, total] = this.addon.edgeLog(rule.id, limit);
    return {
      list: rows.map(([time, clientIP, method, host, path, status, bytes, ms, userAgent, sub]) => ({ time, clientIP, method, host, path, status, bytes, ms, userAgent, sub })),
      total,
    };
  }

  connections(): number {
    let n = this.direct.connections();
    for (const key of this.rules.keys()) n += this.figures(key).connections;
    return n;
  }

  private unfollowPortal: () => void;

  async close(): Promise<void> {
    this.unfollowPortal();
    await Promise.all([...this.rules.keys()].map((k) => this.stop(k)));
    await this.node.close();
    await this.direct.close();
    if (--users === 0) this.addon.edgeStop();
  }
}
